import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * Pre-publication of signing keys: a rotated-in key is published at once and signs only from
 * `activates_at`, once every cached JWKS has had time to expire. Keys that exist already have
 * been signing since they were made.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('signing_keys')
    .addColumn('activates_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('signing_keys')
    .set({ activates_at: sql.ref('created_at') })
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('signing_keys').dropColumn('activates_at').execute();
}
