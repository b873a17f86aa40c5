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
    // Kysely's PostgreSQL introspection scans every schema of the server; a schema dropped by
    // someone else mid-scan (test suites drop theirs at close) fails it. Nothing was changed
    // then, so the run is simply retried.
    const message = error instanceof Error ? error.message : String(error);
    if (attempt >= 5 || !/^schema ".*" does not exist$/.test(message)) {
      throw error instanceof Error ? error : new Error(message);
    }
  }
}
