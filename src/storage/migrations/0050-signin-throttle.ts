import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * Sign-in throttling counts an attempt before its password is checked (docs/security.md), and
 * trusted-browser cookies are signed under a key every instance shares: both live here.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('signin_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .addColumn('forget_at', 'bigint', (c) => c.notNull())
    .addColumn('refused', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('server_secrets').execute();
  await db.schema.dropTable('signin_throttle').execute();
}
