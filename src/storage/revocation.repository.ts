/**
 * An access token's revocation (RFC 7009) and its audit row as one statement on PostgreSQL
 * (docs/performance.md "PostgreSQL"): a data-modifying CTE revokes the token, and the audit row
 * is written from what it returns, so both or neither. SQLite runs revokeAccessToken and
 * recordAudit in one transaction (src/oauth/revoke.ts).
 *
 * A refresh token's revocation stays statement by statement (revokeGrantsWithin): it ends the
 * whole grant, and its access-token and refresh-token updates must each see the tokens a
 * concurrent issuance committed while the grant row was locked, which only a later statement's
 * snapshot does (READ COMMITTED); one statement would read one snapshot and miss them.
 */
import { type Kysely, sql } from 'kysely';
import { executeFixed } from './fixed-statements.js';
import type { AccessToken, AuditEventRow, Database } from './schema.js';

/**
 * The audit row to write, but for account_id (the token's) and the detail's `grant_id` (the
 * token's, appended last to `detail`, a JSON object as recordAudit writes it).
 */
export type RevocationAudit = Omit<AuditEventRow, 'account_id'>;

/**
 * Revokes one live access token of a client and writes its audit row; answers its grant and
 * account, undefined when no live token of this client has this key (and nothing is written).
 * Its grant's row is locked first (`locked`, an InitPlan of the UPDATE's condition), the order
 * every write to a grant's rows keeps (docs/security.md "Lock order").
 */
export async function revokeAccessTokenWithAudit(
  db: Kysely<Database>,
  tokenHash: string,
  clientId: string,
  now: number,
  audit: RevocationAudit,
): Promise<Pick<AccessToken, 'grant_id' | 'account_id'> | undefined> {
  // The detail as JSON.stringify writes it with grant_id added last: `{…` + `,"grant_id":"…"}`.
  const open = audit.detail.slice(0, -1);
  const comma = open === '{' ? '' : ',';
  const result = await executeFixed(
    db,
    sql<Pick<AccessToken, 'grant_id' | 'account_id'>>`with
    locked as (
      select grants.id from grants join access_tokens on access_tokens.grant_id = grants.id
      where access_tokens.token_hash = ${tokenHash}
      for no key update of grants
    ),
    revoked as (
      update access_tokens set revoked_at = ${now}
      where token_hash = ${tokenHash} and client_id = ${clientId} and revoked_at is null
        and grant_id = (select id from locked)
      returning grant_id, account_id
    ),
    audit as (
      insert into audit_events (at, kind, account_id, client_id, ip, detail)
      select ${audit.at}, ${audit.kind}, account_id, ${audit.client_id}, ${audit.ip},
        ${`${open}${comma}"grant_id":`} || to_json(grant_id)::text || '}'
      from revoked
    )
    select grant_id, account_id from revoked`,
  );
  return result.rows[0];
}
