import type { Kysely } from 'kysely';
import { prepared, preparedInsert } from './prepared.js';
import type { Client, Database } from './schema.js';

export const clientById = prepared((db, id: string) =>
  db.selectFrom('clients').selectAll().where('id', '=', id),
);
export const touchClientStatement = prepared((db, id: string, now: number) =>
  db.updateTable('clients').set({ last_used_at: now }).where('id', '=', id),
);

export const insertClient = preparedInsert('clients');

/**
 * The client with this id. An id with a NUL character cannot exist (and PostgreSQL refuses NUL in
 * text parameters with an error), so it is answered as unknown without asking the database.
 */
export async function findClient(db: Kysely<Database>, id: string): Promise<Client | undefined> {
  if (id.includes('\u0000')) return undefined;
  return clientById.first(db, id);
}

/** How stale a client's last use may get before a token request writes it again (seconds). */
export const CLIENT_TOUCH_INTERVAL = 60;

/**
 * Records that the client was used. last_used_at serves pruning of idle clients (days) and
 * `client list`, so it is written at most once a minute: a write per token request was a
 * commit of its own (docs/performance.md).
 */
export async function touchClient(db: Kysely<Database>, client: Client, now: number): Promise<void> {
  if (!clientTouchDue(client, now)) return;
  await touchClientStatement.run(db, client.id, now);
}

/** Whether touchClient would write now (a statement that writes more may write it instead). */
export function clientTouchDue(client: Client, now: number): boolean {
  return client.last_used_at === null || now - client.last_used_at >= CLIENT_TOUCH_INTERVAL;
}

/** Parsed redirect URIs of a client row. */
export function redirectUrisOf(client: Client): string[] {
  return JSON.parse(client.redirect_uris) as string[];
}

/**
 * Writes the row of a client identified by a metadata document (docs/decisions.md "Client ID Metadata Documents"): inserted the first
 * time, afterwards brought up to the latest valid document. Only such a row is ever updated here,
 * and `disabled`, `created_at` and `last_used_at` stay as they are.
 */
export async function saveMetadataClient(db: Kysely<Database>, client: Client): Promise<void> {
  await db
    .insertInto('clients')
    .values(client)
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({
          name: client.name,
          application_type: client.application_type,
          redirect_uris: client.redirect_uris,
          metadata: client.metadata,
          id_token_signed_response_alg: client.id_token_signed_response_alg,
        })
        .where('clients.kind', '=', 'metadata_document'),
    )
    .execute();
}
