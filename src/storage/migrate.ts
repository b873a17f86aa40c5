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
    const message = error instanceof Error ? error.message : String(error);
    const routine = (error as { routine?: unknown } | undefined)?.routine;
    if (attempt >= 5 || !droppedMidScan(message, schema, typeof routine === 'string' ? routine : undefined)) {
      throw error instanceof Error ? error : new Error(message);
    }
  }
}

/**
 * Whether a failed migration run met another schema dropped while Kysely's PostgreSQL
 * introspection scanned it: that scan reads every schema of the server, and resolves each table
 * by name (`pg_get_serial_sequence('schema.table', …)`), so a schema or table dropped by someone
 * else mid-scan (test suites drop theirs at close) fails it with `schema "x" does not exist` or
 * `relation "x.t" does not exist`, and a table rebuilt by another schema's migration mid-scan
 * with `column "c" of relation "t" does not exist` from that very function (PostgreSQL's
 * `routine`; no migration of ours calls it). Nothing was changed then, and the run can simply be
 * retried. A missing schema or relation of our own is a real error, never retried.
 */
export function droppedMidScan(message: string, schema: string | undefined, routine?: string): boolean {
  if (
    routine === 'pg_get_serial_sequence' &&
    /^column "[^"]+" of relation "[^"]+" does not exist$/.test(message)
  ) {
    return true;
  }
  const dropped = /^(?:schema "([^"]+)"|relation "([^".]+)\.[^"]+") does not exist$/.exec(message);
  if (!dropped) return false;
  return (dropped[1] ?? dropped[2]) !== (schema ?? 'public');
}
