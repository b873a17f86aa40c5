import type { Kysely } from 'kysely';
import type { Sessions } from './contract/sessions.js';
import type { Database, Session } from './schema.js';

async function insertSession(db: Kysely<Database>, session: Session): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

function findSession(db: Kysely<Database>, idHash: string): Promise<Session | undefined> {
  return db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
}

/** Records activity: the idle window restarts, never past the absolute expiry. */
async function touchSession(
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

async function deleteSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export function sessionsSection(db: Kysely<Database>): Sessions {
  return {
    start: (session) => insertSession(db, session),
    find: (idHash) => findSession(db, idHash),
    touch: (idHash, now, expiresAt) => touchSession(db, idHash, now, expiresAt),
    end: (idHash) => deleteSession(db, idHash),
  };
}
