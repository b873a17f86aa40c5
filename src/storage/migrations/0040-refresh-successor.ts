import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

/**
 * A rotated refresh token keeps its successor pair for the grace window, sealed under a key only
 * the presented token yields (src/crypto/successor-seal.ts), and erased when the window ends. The
 * partial index finds the pairs to erase without reading every rotated row.
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('refresh_tokens').addColumn('successor', 'text').execute();
  await db.schema
    .createIndex('refresh_tokens_successor')
    .on('refresh_tokens')
    .column('rotated_at')
    .where(sql.ref('successor'), 'is not', null)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('refresh_tokens_successor').execute();
  await db.schema.alterTable('refresh_tokens').dropColumn('successor').execute();
}
