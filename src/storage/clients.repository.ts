import type { Kysely } from 'kysely';
import type { Client, Database } from './schema.js';

export async function insertClient(db: Kysely<Database>, client: Client): Promise<void> {
  await db.insertInto('clients').values(client).execute();
}

/**
 * The client with this id. An id with a NUL character cannot exist (and PostgreSQL refuses NUL in
 * text parameters with an error), so it is answered as unknown without asking the database.
 */
export async function findClient(db: Kysely<Database>, id: string): Promise<Client | undefined> {
  if (id.includes('\u0000')) return undefined;
  return db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchClient(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('clients').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Parsed redirect URIs of a client row. */
export function redirectUrisOf(client: Client): string[] {
  return JSON.parse(client.redirect_uris) as string[];
}
