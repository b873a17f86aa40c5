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

/** Writes the client's last use (a statement that decided it was due: client-rows.ts `clientTouchDue`). */
export async function touchClientNow(db: Kysely<Database>, clientId: string, now: number): Promise<void> {
  await touchClientStatement.run(db, clientId, now);
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
