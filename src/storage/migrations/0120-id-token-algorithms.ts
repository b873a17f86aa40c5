import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * The algorithm a client's ID tokens are signed with (OIDC Dynamic Registration §2
 * `id_token_signed_response_alg`): RS256, ES256 or EdDSA. Every client that exists already was
 * registered when RS256 was the only one, and keeps it. The keys of the new algorithms need no
 * schema change (`signing_keys.alg` has been there from the start): the server makes them at its
 * next start.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('id_token_signed_response_alg', 'text', (c) => c.notNull().defaultTo('RS256'))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('id_token_signed_response_alg').execute();
}
