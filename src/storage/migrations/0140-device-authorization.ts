import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * The device authorization grant (RFC 8628): one row per device authorization request, from
 * the device authorization response to the poll that spends it (docs/storage.md
 * `device_authorizations`). Both codes are stored as SHA-256 hashes only, each unique.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('device_authorizations')
    .addColumn('device_code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('poll_interval', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_polled_at', 'bigint')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('granted_scopes', 'text')
    .addColumn('auth_time', 'bigint')
    .addColumn('decided_at', 'bigint')
    .addColumn('denied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spent_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('device_authorizations_expires')
    .on('device_authorizations')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('device_authorizations_client')
    .on('device_authorizations')
    .column('client_id')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('device_authorizations').execute();
}
