/**
 * A PostgreSQL DATABASE_URL without `?schema=` uses the default search path. When that schema has
 * no schoolauth tables but other schemas of the database have them, the operator has almost
 * certainly dropped the `?schema=` the instances ran with: migrating there would start an empty
 * second installation beside the real one (and Kysely, which finds its bookkeeping tables by name
 * in any schema, fails on `relation "kysely_migration_lock" does not exist` half-way). The start
 * stops instead, naming the schemas found and the `?schema=` to add.
 */
import { type Kysely, sql } from 'kysely';
import { ConfigError } from '../config.js';
import type { Storage } from './connect.js';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';
import { maskDatabaseUrl } from './postgres-probe.js';
import type { Database } from './schema.js';

/** The first migration: a start that ran it created the database. */
const FIRST_MIGRATION = Object.keys(migrations).sort()[0]!;

/** Schemas holding schoolauth's tables: Kysely's migration table beside our signing keys. */
export async function schoolauthSchemas(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where c.relname = 'signing_keys' and c.relkind in ('r', 'p')
      and exists (
        select 1 from pg_catalog.pg_class k
        where k.relnamespace = n.oid and k.relname = 'kysely_migration' and k.relkind in ('r', 'p'))
    order by n.nspname`.execute(db);
  return rows.map((r) => r.schema);
}

/** Throws a ConfigError when the default schema is empty of schoolauth but other schemas are not. */
export async function refuseSchemaMismatch(db: Kysely<Database>, databaseUrl: string): Promise<void> {
  const found = await schoolauthSchemas(db);
  if (found.length === 0) return;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const current = rows[0]?.schema ?? null;
  if (current !== null && found.includes(current)) return;
  const where = current === null ? 'the default search path' : `its default schema "${current}"`;
  const schemas = found.map((s) => `"${s}"`).join(', ');
  const fix =
    found.length === 1
      ? `add ?schema=${found[0]} to DATABASE_URL`
      : `add ?schema=<one of them> (e.g. ?schema=${found[0]}) to DATABASE_URL`;
  throw new ConfigError([
    `DATABASE_URL=${maskDatabaseUrl(databaseUrl)}: ${where} has no schoolauth tables, but schema${found.length === 1 ? '' : 's'} ${schemas} of this database ${found.length === 1 ? 'has' : 'have'} them: ${fix}`,
  ]);
}

/** What a start found of the database: whether its migrations just created it, and where else ours are. */
export interface Prepared {
  readonly newDatabase: boolean;
  /** A new PostgreSQL schema: the other schemas of the database with schoolauth's tables (a mistyped ?schema=). */
  readonly otherSchemas: string[];
}

/**
 * Brings the database to the latest schema at a start: on PostgreSQL without `?schema=`, first
 * refuses a default schema empty of ours beside schemas that hold ours (refuseSchemaMismatch).
 */
export async function prepareDatabase(storage: Storage, databaseUrl: string): Promise<Prepared> {
  const postgres = storage.dialect === 'postgres';
  if (postgres && !storage.schema) await refuseSchemaMismatch(storage.maintenanceDb, databaseUrl);
  const ran = await migrateToLatest(storage.maintenanceDb, storage.schema);
  const newDatabase = ran.includes(FIRST_MIGRATION);
  const otherSchemas =
    newDatabase && postgres && storage.schema
      ? (await schoolauthSchemas(storage.maintenanceDb)).filter((s) => s !== storage.schema)
      : [];
  return { newDatabase, otherSchemas };
}
