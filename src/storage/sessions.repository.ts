import type { Kysely } from 'kysely';
import type { Database, Session } from './schema.js';

export async function insertSession(db: Kysely<Database>, session: Session): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

export function findSession(db: Kysely<Database>, idHash: string): Promise<Session | undefined> {
  return db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
}

/** Records activity: the idle window restarts, never past the absolute expiry. */
export async function touchSession(
  db: Kysely<Database>,
  idHash: string,
  now: number,
  expiresAt: number,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now, expires_at: expiresAt })
    .where('id_hash', '=', idHash)
    .execute();
}

export async function deleteSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}
