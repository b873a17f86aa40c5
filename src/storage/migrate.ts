import { type Kysely, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';

/** Brings the schema to the latest version; safe to run from several instances at once (Kysely's lock). */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<string[]> {
  // Kysely finds its bookkeeping tables by name across all schemas unless told which one is ours.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Branches add migrations in numbered ranges; a later-numbered one may already have run.
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (attempt >= 5 || !isConcurrentDdlRace(error)) {
      throw error instanceof Error ? error : new Error(String(error));
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * Kysely's PostgreSQL introspection (it looks for its bookkeeping tables) reads every schema by
 * name; a schema or table another session drops meanwhile — another deployment or test on the
 * same database — makes it fail with 3F000 / 42P01 although nothing of ours is missing. Retried.
 */
function isConcurrentDdlRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '3F000' || code === '42P01';
}
