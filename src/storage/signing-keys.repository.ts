import type { Kysely } from 'kysely';
import type { Database, SigningKeyRow } from './schema.js';

/** Keys still published: not retired, or retired but within their retire window. */
export function listPublishedKeys(db: Kysely<Database>, now: number): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retire_until', 'is', null), eb('retire_until', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

export function listAllKeys(db: Kysely<Database>): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('signing_keys')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

export async function insertKey(db: Kysely<Database>, row: SigningKeyRow): Promise<void> {
  await db.insertInto('signing_keys').values(row).execute();
}

/** Retires every active key except `keepKid`: they stay published until `retireUntil`. */
export async function retireOtherKeys(
  db: Kysely<Database>,
  keepKid: string,
  now: number,
  retireUntil: number,
): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set({ retired_at: now, retire_until: retireUntil })
    .where('kid', '!=', keepKid)
    .where('retired_at', 'is', null)
    .execute();
}
