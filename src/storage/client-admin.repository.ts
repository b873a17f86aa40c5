/** Operator queries on clients (the `client` CLI). */
import type { Kysely } from 'kysely';
import type { Client, Database } from './schema.js';

export function listClients(db: Kysely<Database>, kind?: Client['kind']): Promise<Client[]> {
  let query = db.selectFrom('clients').selectAll();
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Marks the client disabled; returns the ids of its grants that were still live. */
export async function disableClient(db: Kysely<Database>, clientId: string): Promise<string[]> {
  await db.updateTable('clients').set({ disabled: 1 }).where('id', '=', clientId).execute();
  return liveGrantIdsOfClient(db, clientId);
}

/** Marks the client enabled again; what was revoked when it was disabled stays revoked. */
export async function enableClient(db: Kysely<Database>, clientId: string): Promise<void> {
  await db.updateTable('clients').set({ disabled: 0 }).where('id', '=', clientId).execute();
}

/** The ids of the client's grants that are still live. */
export async function liveGrantIdsOfClient(db: Kysely<Database>, clientId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('grants')
    .select('id')
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}
