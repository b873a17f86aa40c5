/**
 * The device authorizations section of the store (contract/device-authorizations.ts), in Kysely
 * for both backends. They differ in one thing only: how a poll holds its row. PostgreSQL locks it
 * (SELECT … FOR UPDATE inside the poll's transaction), so concurrent polls on any instance take
 * turns and see each other's writes; SQLite's transaction holds the database's write lock, which
 * is the same turn-taking for its one server process.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DeviceAuthorizations, DevicePoll } from './contract/device-authorizations.js';
import type { Database, DeviceAuthorization } from './schema.js';
import { inTransaction } from './transaction.js';

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_STEP = 5;

export interface RowLock {
  /** Reads the request of a device code for the poll's transaction, holding it when the backend needs to. */
  readForPoll(trx: Transaction<Database>, deviceCodeHash: string): Promise<DeviceAuthorization | undefined>;
}

function pollOf(row: DeviceAuthorization | undefined, clientId: string, now: number): DevicePoll | 'spend' {
  if (!row || row.client_id !== clientId) return { outcome: 'unknown' };
  if (row.spent_at !== null) return { outcome: 'spent' };
  if (row.expires_at <= now) return { outcome: 'expired' };
  if (row.decided_at !== null) return row.denied ? { outcome: 'denied' } : 'spend';
  const tooSoon = row.last_polled_at !== null && now - row.last_polled_at < row.poll_interval;
  return tooSoon
    ? { outcome: 'slow_down', interval: row.poll_interval + SLOW_DOWN_STEP }
    : { outcome: 'pending', interval: row.poll_interval };
}

async function pollWithin(
  trx: Transaction<Database>,
  lock: RowLock,
  deviceCodeHash: string,
  clientId: string,
  now: number,
): Promise<DevicePoll> {
  const row = await lock.readForPoll(trx, deviceCodeHash);
  const found = pollOf(row, clientId, now);
  if (found === 'spend') {
    // The row is held: nothing spent it since the read. The condition says so once more.
    const spent = await trx
      .updateTable('device_authorizations')
      .set({ spent_at: now })
      .where('device_code_hash', '=', deviceCodeHash)
      .where('spent_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return spent ? { outcome: 'approved', authorization: spent } : { outcome: 'spent' };
  }
  if (found.outcome === 'pending' || found.outcome === 'slow_down') {
    await trx
      .updateTable('device_authorizations')
      .set({ last_polled_at: now, poll_interval: found.interval })
      .where('device_code_hash', '=', deviceCodeHash)
      .execute();
  }
  return found;
}

const pendingByUserCode = (db: Kysely<Database>, userCodeHash: string, now: number) =>
  db
    .updateTable('device_authorizations')
    .where('user_code_hash', '=', userCodeHash)
    .where('decided_at', 'is', null)
    .where('expires_at', '>', now);

export function deviceAuthorizationsOn(db: Kysely<Database>, lock: RowLock): DeviceAuthorizations {
  return {
    async create(r) {
      return inTransaction(db, async (trx) => {
        await trx
          .deleteFrom('device_authorizations')
          .where('user_code_hash', '=', r.userCodeHash)
          .where('expires_at', '<=', r.createdAt)
          .execute();
        const inserted = await trx
          .insertInto('device_authorizations')
          .values({
            device_code_hash: r.deviceCodeHash,
            user_code_hash: r.userCodeHash,
            client_id: r.clientId,
            scopes: r.scopes,
            resource: r.resource,
            poll_interval: r.interval,
            created_at: r.createdAt,
            expires_at: r.expiresAt,
            last_polled_at: null,
            account_id: null,
            granted_scopes: null,
            auth_time: null,
            decided_at: null,
            denied: 0,
            spent_at: null,
          })
          .onConflict((oc) => oc.column('user_code_hash').doNothing())
          .returning('device_code_hash')
          .executeTakeFirst();
        return inserted !== undefined;
      });
    },
    findPendingByUserCode: (userCodeHash, now) =>
      db
        .selectFrom('device_authorizations')
        .selectAll()
        .where('user_code_hash', '=', userCodeHash)
        .where('decided_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    approve: (userCodeHash, decision, now) =>
      pendingByUserCode(db, userCodeHash, now)
        .set({
          account_id: decision.accountId,
          granted_scopes: decision.scopes,
          auth_time: decision.authTime,
          decided_at: now,
          denied: 0,
        })
        .returningAll()
        .executeTakeFirst(),
    deny: (userCodeHash, accountId, now) =>
      pendingByUserCode(db, userCodeHash, now)
        .set({ account_id: accountId, decided_at: now, denied: 1 })
        .returningAll()
        .executeTakeFirst(),
    poll: (deviceCodeHash, clientId, now) =>
      inTransaction(db, (trx) => pollWithin(trx, lock, deviceCodeHash, clientId, now)),
    async pruneExpired(deadBefore, limit) {
      const expired = db
        .selectFrom('device_authorizations')
        .select('device_code_hash')
        .where('expires_at', '<=', deadBefore)
        .limit(limit);
      const result = await db
        .deleteFrom('device_authorizations')
        .where('device_code_hash', 'in', expired)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
