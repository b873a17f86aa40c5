import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/** The operator's block and trust rules for client_id URLs and their domains (docs/decisions.md "Client ID Metadata Documents"). */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('client_metadata_rules')
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('client_metadata_rules_pk', ['target_kind', 'target'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('client_metadata_rules').execute();
}
