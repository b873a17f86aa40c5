/**
 * Revocation (RFC 7009) by the token's own client (contract/revocation.ts), in one transaction
 * with its audit row. An access token's revocation and its audit row are one statement on
 * PostgreSQL (docs/performance.md "PostgreSQL"): a data-modifying CTE revokes the token, and the
 * audit row is written from what it returns, so both or neither; SQLite runs revokeAccessToken
 * and the audit insert.
 *
 * A refresh token's revocation stays statement by statement (revokeGrantsWithin): it ends the
 * whole grant, and its access-token and refresh-token updates must each see the tokens a
 * concurrent issuance committed while the grant row was locked, which only a later statement's
 * snapshot does (READ COMMITTED); one statement would read one snapshot and miss them.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { insertAuditRow } from './audit.repository.js';
import type { OwnTokenRevocation, Revoked } from './contract/revocation.js';
import { executeFixed } from './fixed-statements.js';
import { revokeGrantsWithin } from './grants.repository.js';
import { findRefreshToken } from './refresh-tokens.repository.js';
import type { AccessToken, AuditEventRow, Database } from './schema.js';
import { inTransaction } from './transaction.js';

/** The `token.revoked` audit row (docs/security.md "Audit trail"). */
export const revocationAudit = (
  r: OwnTokenRevocation,
  kind: Revoked['kind'],
  grantId: string,
  accountId: string,
) =>
  ({
    at: r.now,
    kind: 'token.revoked',
    account_id: accountId,
    client_id: r.clientId,
    ip: r.ip,
    detail: JSON.stringify({ token_type: kind, grant_id: grantId }),
  }) satisfies AuditEventRow;

/** Revokes one live access token of the client with its audit row; undefined when there is none. */
export type AccessRevoker = (
  trx: Transaction<Database>,
  r: OwnTokenRevocation,
) => Promise<Revoked | undefined>;

/** PostgreSQL's AccessRevoker: one statement (revokeAccessTokenWithAudit). */
export const revokeAccessInOneStatement: AccessRevoker = async (trx, r) => {
  const row = await revokeAccessTokenWithAudit(trx, r.tokenHash, r.clientId, r.now, {
    at: r.now,
    kind: 'token.revoked',
    client_id: r.clientId,
    ip: r.ip,
    // revocationAudit's detail but for grant_id, which the statement appends from the token row.
    detail: JSON.stringify({ token_type: 'access' }),
  });
  return row && { kind: 'access', grantId: row.grant_id, accountId: row.account_id };
};

/**
 * contract/revocation.ts `revokeOwn`: a refresh token ends its whole grant, an access token only
 * itself; the hint orders the search (RFC 7009 §2.1).
 */
export function revokeOwnToken(
  db: Kysely<Database>,
  r: OwnTokenRevocation,
  revokeAccess: AccessRevoker,
): Promise<Revoked | undefined> {
  return inTransaction(db, async (trx) => {
    const tryRefresh = async (): Promise<Revoked | undefined> => {
      const row = await findRefreshToken(trx, r.tokenHash);
      if (!row || row.client_id !== r.clientId) return undefined;
      await revokeGrantsWithin(trx, [row.grant_id], r.now);
      await insertAuditRow(trx, revocationAudit(r, 'refresh', row.grant_id, row.account_id));
      return { kind: 'refresh', grantId: row.grant_id, accountId: row.account_id };
    };
    const tryAccess = () => revokeAccess(trx, r);
    const order = r.hint === 'refresh_token' ? [tryRefresh, tryAccess] : [tryAccess, tryRefresh];
    for (const attempt of order) {
      const revoked = await attempt();
      if (revoked) return revoked;
    }
    return undefined;
  });
}

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
