/**
 * The prune's statements (contract/expired-rows.ts; the pacing is src/ops/prune.ts): rows that
 * die at their own `expires_at` (codes and tokens) found through that index, and the rows whose
 * death no index serves (sessions, windows, sign-in counts, idle clients, dead grants) judged
 * among a page of keys.
 */
import { type Kysely, sql } from 'kysely';
import type { ExpiringTable, Upkeep } from './contract/upkeep.js';
import { dialectOf } from './dialect.js';
import { eraseEndedSuccessors } from './refresh-tokens.repository.js';
import type { Database } from './schema.js';

/** The tables whose rows die at their own `expires_at`, and each one's primary key. */
const EXPIRING = {
  authorization_codes: 'code_hash',
  access_tokens: 'token_hash',
  refresh_tokens: 'token_hash',
} as const satisfies Record<ExpiringTable, string>;

/**
 * Deletes up to `rows` rows of `table` that expired by `dead`, found through its expires_at
 * index; answers the grant of each row deleted. PostgreSQL: rows another transaction holds (a
 * revocation marks a grant's expired tokens too, grant first) are skipped, not waited for, so a
 * prune never holds one of a grant's rows while waiting on another (docs/security.md "Lock
 * order"); the next prune takes them.
 */
async function deleteExpired(
  db: Kysely<Database>,
  table: ExpiringTable,
  dead: number,
  rows: number,
): Promise<string[]> {
  const key = EXPIRING[table];
  const expired = db.selectFrom(table).select(key).where('expires_at', '<=', dead).limit(rows);
  const deleted = await db
    .deleteFrom(table)
    .where(key, 'in', dialectOf(db) === 'postgres' ? expired.forUpdate().skipLocked() : expired)
    .returning('grant_id')
    .execute();
  return deleted.map((row) => row.grant_id);
}

const deleted = (result: { numDeletedRows: bigint }): number => Number(result.numDeletedRows);

const KEYS = {
  sessions: 'id_hash',
  rate_limits: 'key',
  signin_throttle: 'key',
  grants: 'id',
  clients: 'id',
} as const;

export function upkeepSection(db: Kysely<Database>): Upkeep {
  return {
    eraseEndedSuccessors: (rotatedBefore) => eraseEndedSuccessors(db, rotatedBefore),
    async ping() {
      await sql`select 1`.execute(db);
    },
    deleteExpired: (table, dead, rows) => deleteExpired(db, table, dead, rows),
    async page(table, after, rows) {
      const key = KEYS[table];
      // biome-ignore lint/suspicious/noExplicitAny: one text primary key, whichever table it belongs to
      const q = (db as Kysely<any>).selectFrom(table).select(key).orderBy(key).limit(rows);
      const found: Array<Record<string, string>> = await (after === undefined
        ? q
        : q.where(key, '>', after)
      ).execute();
      return found.map((row) => row[key] as string);
    },
    deleteEndedSessions: async (keys, now, createdBefore) =>
      deleted(
        await db
          .deleteFrom('sessions')
          .where('id_hash', 'in', keys)
          .where((eb) => eb.or([eb('expires_at', '<=', now), eb('created_at', '<=', createdBefore)]))
          .executeTakeFirst(),
      ),
    deleteEndedWindows: async (keys, now) =>
      deleted(
        await db
          .deleteFrom('rate_limits')
          .where('key', 'in', keys)
          .where('reset_at', '<=', now)
          .executeTakeFirst(),
      ),
    deleteForgottenSigninCounts: async (keys, now) =>
      deleted(
        await db
          .deleteFrom('signin_throttle')
          .where('key', 'in', keys)
          .where('forget_at', '<=', now)
          .executeTakeFirst(),
      ),
    deleteIdleClients: async (keys, idleBefore) =>
      deleted(
        await db
          .deleteFrom('clients')
          .where('id', 'in', keys)
          .where('kind', 'in', ['dynamic', 'metadata_document'])
          .where((eb) => eb(eb.fn.coalesce('last_used_at', 'created_at'), '<=', idleBefore))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('grants').select('grants.id').whereRef('grants.client_id', '=', 'clients.id'),
              ),
            ),
          )
          .executeTakeFirst(),
      ),
    deleteDeadGrants: async (keys, createdBefore) =>
      deleted(
        await db
          .deleteFrom('grants')
          .where('id', 'in', keys)
          .where('created_at', '<=', createdBefore)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('authorization_codes')
                  .select('authorization_codes.grant_id')
                  .whereRef('authorization_codes.grant_id', '=', 'grants.id')
                  .unionAll(
                    selectFrom('access_tokens')
                      .select('access_tokens.grant_id')
                      .whereRef('access_tokens.grant_id', '=', 'grants.id'),
                  )
                  .unionAll(
                    selectFrom('refresh_tokens')
                      .select('refresh_tokens.grant_id')
                      .whereRef('refresh_tokens.grant_id', '=', 'grants.id'),
                  ),
              ),
            ),
          )
          .executeTakeFirst(),
      ),
  };
}
