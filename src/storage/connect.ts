/**
 * The only module that knows SQLite from PostgreSQL at connection time. Everything above it
 * sees a `Kysely<Database>`.
 */
import { resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { DialectName } from './dialect.js';
import { NoDatabaseError, openExistingSqlite, requireExistingPostgres } from './existing-database.js';
import { createPgPool, kyselyPool } from './pg-pool.js';
import { postgresStore } from './postgres/store.js';
import { maskDatabaseUrl, probePostgres } from './postgres-probe.js';
import { createDatabaseFile } from './private-files.js';
import type { Database } from './schema.js';
import SQLite from './sqlite/binding.js';
import { SqliteConnection } from './sqlite/connection.js';
import { GuardedSqliteDialect } from './sqlite/driver.js';
import { holdServerLock } from './sqlite/server-lock.js';
import { sqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

export type { DialectName };

export interface Storage {
  /** The store contract (store.ts) on this database. */
  readonly store: Store;
  /** The store on `maintenanceDb`: for the CLI, migrations and pruning. */
  readonly maintenanceStore: Store;
  /** Every statement waits at most DATABASE_TIMEOUT for the database (PostgreSQL). */
  readonly db: Kysely<Database>;
  /** The same database without that bound, for what may run long: migrations, pruning. */
  readonly maintenanceDb: Kysely<Database>;
  readonly dialect: DialectName;
  /** The pg pool (PostgreSQL only), for LISTEN/NOTIFY and advisory locks. */
  readonly pool?: pg.Pool;
  /** The PostgreSQL schema in use, when not the default search path. */
  readonly schema?: string;
  /** False for a database in memory, gone when the process ends (SQLite's `:memory:`). */
  readonly persistent: boolean;
  /** The SQLite database file (absolute path); undefined in memory and on PostgreSQL. */
  readonly file?: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (created if missing); also read from `?schema=` in the URL. */
  schema?: string;
  poolSize?: number;
  /**
   * PostgreSQL: prepared.ts's statements sent named, planned once per connection (default true;
   * DATABASE_NAMED_STATEMENTS, storage/statement-names.ts).
   */
  namedStatements?: boolean;
  /** DATABASE_TIMEOUT in seconds (default 5): PostgreSQL waits, SQLite's busy_timeout. */
  timeoutSeconds?: number;
  /** SQLite: the one directory created for the database file when missing (DATA_DIR), mode 0700. */
  dataDir?: string;
  /** SQLite: hold the one-server-per-file lock (sqlite/server-lock.ts) until close. */
  serverLock?: boolean;
  /**
   * The CLI: open only a database that exists with schoolauth's tables, creating nothing (no
   * file, directory or PostgreSQL schema); else NoDatabaseError (existing-database.ts).
   */
  existing?: boolean;
}

const timeoutMs = (options: OpenOptions): number => (options.timeoutSeconds ?? 5) * 1000;

function openSqlite(path: string, options: OpenOptions): Storage {
  if (path === ':memory:') {
    if (options.existing) throw new NoDatabaseError('sqlite::memory:', 'a database in memory starts empty');
    return sqliteStorage(new SQLite(path), path, options);
  }
  const file = resolve(path);
  if (options.existing) {
    const database = openExistingSqlite(file);
    try {
      const storage = sqliteStorage(database, file, options);
      return { ...storage, file };
    } catch (error) {
      database.close();
      throw error;
    }
  }
  // Created 0600 before SQLite opens it: SQLite would create it 0644 (private-files.ts).
  createDatabaseFile(file, options.dataDir);
  const lock = options.serverLock ? holdServerLock(file) : undefined;
  try {
    const storage = sqliteStorage(new SQLite(file), file, options);
    return { ...storage, file, close: () => storage.close().finally(() => lock?.release()) };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * One connection per process, in WAL mode (readers never wait for the writer) with
 * synchronous=NORMAL: a commit survives a process crash (SIGKILL); only a power loss may drop the
 * last ones. SQLite's own automatic checkpoints keep the WAL short.
 */
function sqliteStorage(database: SQLite.Database, path: string, options: OpenOptions): Storage {
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma(`busy_timeout = ${timeoutMs(options)}`);
  const connection = new SqliteConnection(database);
  const db = new Kysely<Database>({ dialect: new GuardedSqliteDialect(connection) });
  connection.db = db;
  const store = sqliteStore(connection);
  return {
    store,
    maintenanceStore: store,
    db,
    maintenanceDb: db,
    dialect: 'sqlite',
    persistent: path !== ':memory:',
    close: () => db.destroy(),
  };
}

async function openPostgres(url: string, options: OpenOptions): Promise<Storage> {
  const parsed = new URL(url);
  const schema = options.schema ?? parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`PostgreSQL schema name ${JSON.stringify(schema)} must match [a-z_][a-z0-9_]*`);
  }
  const timeout = timeoutMs(options);
  const pool = createPgPool(parsed.toString(), {
    max: options.poolSize ?? 10,
    schema,
    timeoutMs: timeout,
    namedStatements: options.namedStatements ?? true,
  });
  try {
    await probePostgres(parsed.toString(), url);
    if (options.existing) await requireExistingPostgres(pool, schema, maskDatabaseUrl(url));
    else if (schema) await createSchema(pool, schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: kyselyPool(pool, timeout, true) }),
  });
  const maintenanceDb = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: kyselyPool(pool, undefined, false) }),
  });
  return {
    store: postgresStore(db, pool),
    maintenanceStore: postgresStore(maintenanceDb, pool),
    db,
    maintenanceDb,
    dialect: 'postgres',
    persistent: true,
    pool,
    ...(schema ? { schema } : {}),
    close: () => db.destroy(),
  };
}

/**
 * CREATE SCHEMA IF NOT EXISTS is not safe against itself: of several instances starting at once
 * on a new schema, all but one may fail with a unique violation on pg_namespace. That one made it,
 * which is all the others wanted.
 */
async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    const exists = await pool.query('select 1 from pg_namespace where nspname = $1', [schema]);
    if (exists.rowCount === 0) throw error;
  }
}

/** Opens `sqlite:<path>` / `sqlite::memory:` or `postgres://…`. */
export async function openStorage(databaseUrl: string, options: OpenOptions = {}): Promise<Storage> {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length), options);
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return openPostgres(databaseUrl, options);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}
