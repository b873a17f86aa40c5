/** Operator queries on clients (the `client` CLI). */
import type { Kysely } from 'kysely';
import type { Client, Database } from './schema.js';

export function listClients(db: Kysely<Database>, kind?: Client['kind']): Promise<Client[]> {
  let query = db.selectFrom('clients').selectAll();
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Marks the client disabled (1) or enabled again (0); what was revoked stays revoked. */
export async function setClientDisabled(
  db: Kysely<Database>,
  clientId: string,
  disabled: 0 | 1,
): Promise<void> {
  await db.updateTable('clients').set({ disabled }).where('id', '=', clientId).execute();
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
