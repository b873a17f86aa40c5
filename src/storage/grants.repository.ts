import type { Kysely, Transaction } from 'kysely';
import { insertAuditRow } from './audit.repository.js';
import { touchClientNow } from './clients.repository.js';
import { dialectOf } from './dialect.js';
import type { IssuanceWrites } from './issuance-statements.repository.js';
import type { AuditEventRow, AuthorizationCode, Database, Grant } from './schema.js';
import { insertAccess, insertRefresh } from './tokens.repository.js';
import { inTransaction } from './transaction.js';

/** A new grant and its authorization code, written together. */
export async function insertGrantWithCode(
  db: Kysely<Database>,
  grant: Grant,
  code: AuthorizationCode,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.insertInto('grants').values(grant).execute();
    await trx.insertInto('authorization_codes').values(code).execute();
  });
}

/** contract/issuance.ts `issueGrant`: the grant, its first token set, the audit row and the client's last use. */
export function insertGrantWithTokens(db: Kysely<Database>, grant: Grant, w: IssuanceWrites): Promise<void> {
  return inTransaction(db, async (trx) => {
    await trx.insertInto('grants').values(grant).execute();
    await insertAccess(trx, w.access);
    if (w.refresh) await insertRefresh(trx, w.refresh);
    await insertAuditRow(trx, w.audit);
    if (w.touchClientId !== undefined) await touchClientNow(trx, w.touchClientId, w.now);
  });
}

/**
 * Ends grants and every token issued under them, at once (revocation is immediate on every
 * instance because the token rows themselves are marked).
 */
export async function revokeGrants(
  db: Kysely<Database>,
  grantIds: readonly string[],
  now: number,
): Promise<void> {
  if (grantIds.length === 0) return;
  await inTransaction(db, (trx) => revokeGrantsWithin(trx, grantIds, now));
}

/**
 * Revokes every live grant of one account (of one client only, when `clientId` is given) with
 * every token under it, inside the caller's transaction (`account disable`, `account
 * reset-password`, Revoke in Connected apps); answers the grants it revoked.
 */
export async function revokeAccountGrantsWithin(
  trx: Transaction<Database>,
  accountId: string,
  now: number,
  clientId?: string,
): Promise<ReadonlyArray<{ id: string; client_id: string }>> {
  let query = trx
    .selectFrom('grants')
    .select(['id', 'client_id'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (clientId !== undefined) query = query.where('client_id', '=', clientId);
  const grants = await query.execute();
  await revokeGrantsWithin(
    trx,
    grants.map((g) => g.id),
    now,
  );
  return grants;
}

/**
 * revokeGrants inside a transaction the caller holds (its other writes commit with it).
 *
 * Lock order (docs/security.md "Lock order"): the grants' rows first, then their access tokens,
 * then their refresh tokens, as every write to a grant's rows takes them. Several grants are
 * locked in one order, by id (PostgreSQL), so two revocations of overlapping sets (Connected
 * apps, account disable) queue instead of each holding a grant the other waits for; one grant's
 * UPDATE is its lock. SQLite holds the whole database's write lock for the transaction.
 */
export async function revokeGrantsWithin(
  trx: Transaction<Database>,
  grantIds: readonly string[],
  now: number,
): Promise<void> {
  if (grantIds.length === 0) return;
  if (grantIds.length > 1 && dialectOf<Database>(trx) === 'postgres') {
    await trx
      .selectFrom('grants')
      .select('id')
      .where('id', 'in', grantIds)
      .orderBy('id')
      .forNoKeyUpdate()
      .execute();
  }
  await trx
    .updateTable('grants')
    .set({ revoked_at: now })
    .where('id', 'in', grantIds)
    .where('revoked_at', 'is', null)
    .execute();
  await trx
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('grant_id', 'in', grantIds)
    .where('revoked_at', 'is', null)
    .execute();
  // A revoked family's sealed successor pairs (src/crypto/successor-seal.ts) go at once.
  await trx
    .updateTable('refresh_tokens')
    .set({ revoked_at: now, successor: null })
    .where('grant_id', 'in', grantIds)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes one grant with every token under it, and writes the audit row that says why, together. */
export function revokeGrantWithAudit(
  db: Kysely<Database>,
  grantId: string,
  now: number,
  audit: AuditEventRow,
): Promise<void> {
  return inTransaction(db, async (trx) => {
    await revokeGrantsWithin(trx, [grantId], now);
    await insertAuditRow(trx, audit);
  });
}
