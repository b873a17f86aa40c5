import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * DPoP (RFC 9449): the key thumbprint a code, an access token or a refresh token is bound to
 * (`jkt`, null: not bound), the record of proofs seen (their `jti`, per key, until they would be
 * stale anyway), and the server nonces every instance accepts, stored as hashes.
 */
export async function up(db: Db): Promise<void> {
  for (const table of ['authorization_codes', 'access_tokens', 'refresh_tokens']) {
    await db.schema.alterTable(table).addColumn('jkt', 'text').execute();
  }
  await db.schema
    .createTable('dpop_proofs')
    .addColumn('proof_key', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dpop_proofs_expires').on('dpop_proofs').column('expires_at').execute();
  await db.schema
    .createTable('dpop_nonces')
    .addColumn('nonce_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('dpop_nonces').execute();
  await db.schema.dropTable('dpop_proofs').execute();
  for (const table of ['authorization_codes', 'access_tokens', 'refresh_tokens']) {
    await db.schema.alterTable(table).dropColumn('jkt').execute();
  }
}
