/**
 * The token endpoint's writes as one statement on PostgreSQL (docs/performance.md "PostgreSQL"):
 * spend the code or the refresh token, touch the live grant, insert the new tokens, the audit row
 * and the client's last use, as data-modifying CTEs, each written only when the step before it
 * returned a row. The statements they replace (codes, refresh-tokens and tokens repositories) ran
 * one after the other in one transaction; SQLite still runs those.
 *
 * The invariants are the separate statements': the spend is an UPDATE … WHERE consumed_at IS NULL
 * (rotated_at IS NULL) … RETURNING, so of two requests for one code or token, on one instance or
 * two, the second waits on the row lock and, once the first commits, returns no row and writes
 * nothing (atomic single use). The grant is touched only while `revoked_at IS NULL`, with its row
 * lock: a concurrent revocation either waits for these tokens to commit and then revokes them in
 * its next statements, or makes the touch return no row, and then no token is written.
 *
 * Lock order (docs/security.md "Lock order"): the grant's row first, then the code or token. The
 * `locked` CTE takes the grant's row lock, and the spend's condition `grant_id = (select id from
 * locked)` is an InitPlan PostgreSQL evaluates before the spend's UPDATE receives, and so locks,
 * its row. A revocation locks the grant first too, so the two queue on the grant's row instead of
 * each holding the row the other waits for (deadlock). test/http/pg-lock-order.test.ts checks
 * the order on the server itself.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { executeFixed } from './fixed-statements.js';
import type { AccessToken, AuditEventRow, Database, RefreshToken } from './schema.js';
import { insertRowFor } from './statement-parts.js';

export interface IssuanceWrites {
  readonly now: number;
  readonly access: AccessToken;
  /** The refresh token issued with it, when the client has the refresh_token grant. */
  readonly refresh: RefreshToken | undefined;
  readonly audit: AuditEventRow;
  /** The client whose last_used_at is written with the tokens, when due (touchClient's interval). */
  readonly touchClientId: string | undefined;
}

/**
 * `spent`: the code or token was spent by this statement (false: another request spent it first,
 * or the token is revoked). `authTime`: the grant's auth_time when it was live and the tokens were
 * written; undefined when nothing was issued.
 */
export interface IssuanceOutcome {
  readonly spent: boolean;
  readonly authTime: number | undefined;
}

const none = sql.raw('');

/**
 * `spend`: the UPDATE that spends the code or token, with `locked` (the grant's row, locked) in
 * its condition, returning grant_id.
 */
async function issueAfter(
  db: Kysely<Database>,
  grantId: string,
  spend: RawBuilder<unknown>,
  writes: IssuanceWrites,
): Promise<IssuanceOutcome> {
  const { now, access, refresh, audit, touchClientId } = writes;
  const result = await executeFixed(
    db,
    sql<{ spent: boolean; auth_time: number | null }>`with
    locked as (select id from grants where id = ${grantId} for no key update),
    spent as (${spend}),
    live as (
      update grants set last_used_at = ${now}
      where id = (select grant_id from spent) and revoked_at is null
      returning auth_time
    ),
    access as (${insertRowFor('access_tokens', access, 'live')})
    ${refresh ? sql`, refresh as (${insertRowFor('refresh_tokens', refresh, 'live')})` : none},
    audit as (${insertRowFor('audit_events', audit, 'live')})
    ${
      touchClientId === undefined
        ? none
        : sql`, touched as (
            update clients set last_used_at = ${now}
            where id = ${touchClientId} and exists (select 1 from live)
          )`
    }
    select exists (select 1 from spent) as spent, (select auth_time from live) as auth_time`,
  );
  const row = result.rows[0];
  return { spent: row?.spent === true, authTime: row?.auth_time ?? undefined };
}

/**
 * Redeems an authorization code (RFC 6749 §4.1.2: once) and writes its token set in one
 * statement. Not spent: the code was consumed before (a replay, or a concurrent redemption won).
 */
export function redeemCodeAndIssue(
  db: Kysely<Database>,
  codeHash: string,
  grantId: string,
  writes: IssuanceWrites,
): Promise<IssuanceOutcome> {
  const consume = sql`update authorization_codes set consumed_at = ${writes.now}
    where code_hash = ${codeHash} and consumed_at is null and grant_id = (select id from locked)
    returning grant_id`;
  return issueAfter(db, grantId, consume, writes);
}

/**
 * Rotates a live refresh token (docs/decisions.md "Refresh rotation": once), keeping its sealed successor pair for the grace
 * window, and writes the successor pair in one statement. Not spent: another request rotated it
 * first, or it is revoked (markRotated's conditions).
 */
export function rotateRefreshTokenAndIssue(
  db: Kysely<Database>,
  tokenHash: string,
  grantId: string,
  sealedSuccessor: string,
  writes: IssuanceWrites,
): Promise<IssuanceOutcome> {
  const rotate = sql`update refresh_tokens set rotated_at = ${writes.now}, successor = ${sealedSuccessor}
    where token_hash = ${tokenHash} and rotated_at is null and revoked_at is null
      and grant_id = (select id from locked)
    returning grant_id`;
  return issueAfter(db, grantId, rotate, writes);
}
