/**
 * The CLI works only on a database that is already there (docs/deploy.md "Running the CLI"):
 * run from the wrong folder, or with a mistyped DATA_DIR or DATABASE_URL, it would otherwise
 * create a fresh empty database beside the real one, rotate keys or create accounts in it, and
 * report success. Only the server's start, `migrate` and `demo` create a database. These checks
 * change nothing: no file, directory or schema is created, and nothing is written.
 */
import { existsSync, statSync } from 'node:fs';
import type pg from 'pg';
import SQLite from './sqlite/binding.js';

/** The table Kysely's migrator keeps: present in every database schoolauth has set up. */
const MIGRATION_TABLE = 'kysely_migration';

/** No schoolauth database where the configuration points; `where` names it, `why` says what is there. */
export class NoDatabaseError extends Error {
  constructor(
    readonly where: string,
    readonly why: string,
  ) {
    super(`no schoolauth database at ${where}: ${why}`);
    this.name = 'NoDatabaseError';
  }
}

function hasMigrationTable(database: SQLite.Database): boolean {
  return (
    database
      .prepare("select count(*) from sqlite_master where type = 'table' and name = ?")
      .pluck()
      .get(MIGRATION_TABLE) === 1
  );
}

/**
 * Opens the SQLite database `file` (an absolute path) only when it exists and holds schoolauth's
 * tables; throws NoDatabaseError otherwise, having created nothing. The caller owns the connection.
 */
export function openExistingSqlite(file: string): SQLite.Database {
  if (!existsSync(file)) throw new NoDatabaseError(file, 'the file does not exist');
  if (!statSync(file).isFile()) throw new NoDatabaseError(file, 'it is not a file');
  const database = new SQLite(file, { fileMustExist: true });
  let found: boolean;
  try {
    found = hasMigrationTable(database);
  } catch (error) {
    database.close();
    if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
      throw new NoDatabaseError(file, 'the file is not an SQLite database');
    }
    throw error;
  }
  if (!found) {
    database.close();
    throw new NoDatabaseError(file, 'the file has no schoolauth tables');
  }
  return database;
}

/** Throws NoDatabaseError unless the SQLite file exists with schoolauth's tables (backup's source). */
export function requireExistingSqlite(file: string): void {
  openExistingSqlite(file).close();
}

/**
 * Throws NoDatabaseError unless the PostgreSQL database holds schoolauth's tables in `schema`
 * (or, without one, on the connection's search path, where the migrator puts them). A schema
 * that does not exist holds none, and is not created.
 */
export async function requireExistingPostgres(
  pool: pg.Pool,
  schema: string | undefined,
  where: string,
): Promise<void> {
  const name = schema ? `${schema}.${MIGRATION_TABLE}` : MIGRATION_TABLE;
  const { rows } = await pool.query<{ found: boolean }>('select to_regclass($1) is not null as found', [
    name,
  ]);
  if (!rows[0]?.found) {
    throw new NoDatabaseError(
      where,
      schema ? `schema "${schema}" has no schoolauth tables` : 'it has no schoolauth tables',
    );
  }
}
