/**
 * The rows that die at their own `expires_at` (codes and tokens), deleted for the prune
 * (src/ops/prune.ts) in bounded statements.
 */
import type { Kysely } from 'kysely';
import { dialectOf } from './dialect.js';
import type { Database } from './schema.js';

/** The tables whose rows die at their own `expires_at`, and each one's primary key. */
const EXPIRING = {
  authorization_codes: 'code_hash',
  access_tokens: 'token_hash',
  refresh_tokens: 'token_hash',
} as const;

export type ExpiringTable = keyof typeof EXPIRING;

/**
 * Deletes up to `rows` rows of `table` that expired by `dead`, found through its expires_at
 * index; answers the grant of each row deleted. PostgreSQL: rows another transaction holds (a
 * revocation marks a grant's expired tokens too, grant first) are skipped, not waited for, so a
 * prune never holds one of a grant's rows while waiting on another (docs/security.md "Lock
 * order"); the next prune takes them.
 */
export async function deleteExpired(
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
