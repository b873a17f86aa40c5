/**
 * Kysely's SQLite driver, rebuilt for a busy server. SQLite has one connection, so requests
 * queue for it. Kysely's own driver wakes every waiter on each release and all but one go back
 * to sleep: with 16–64 requests in flight that was a storm of promise wake-ups per query. Here
 * waiters form a FIFO queue and a release hands the connection to the next one directly.
 * Prepared statements are kept per SQL text (Kysely prepares every query anew; compiling was a
 * tenth of a registration's CPU time, docs/performance.md).
 */
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type TransactionSettings,
} from 'kysely';

/** Distinct SQL texts kept prepared; queries beyond this (unusual IN-list lengths) are prepared each time. */
const STATEMENT_CACHE_SIZE = 500;

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

interface Prepared {
  readonly statement: SQLite.Statement;
  /** Whether it returns rows (read once: `reader` is a native getter). */
  readonly reader: boolean;
}

class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();

  constructor(private readonly database: SQLite.Database) {}

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      const statement = this.database.prepare(sql);
      prepared = { statement, reader: statement.reader };
      if (this.statements.size < STATEMENT_CACHE_SIZE) this.statements.set(sql, prepared);
    }
    return prepared;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { statement, reader } = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the signature is Kysely's.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used with SQLite');
  }
}

class QueuedSqliteDriver implements Driver {
  private readonly connection: SqliteConnection;
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly database: SQLite.Database) {
    this.connection = new SqliteConnection(database);
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.connection);
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.connection)));
  }

  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    // The connection passes straight to the next waiter: it stays busy.
    if (next) next();
    else this.busy = false;
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(BEGIN);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(COMMIT);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(ROLLBACK);
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

/** Kysely's SQLite dialect (compiler, adapter, introspector) with the queued driver above. */
export class QueuedSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SQLite.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    return new QueuedSqliteDriver(this.database);
  }
}
