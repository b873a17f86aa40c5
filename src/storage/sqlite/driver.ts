/**
 * Kysely on the SQLite connection, for the queries not (yet) in the store: Kysely's own SQLite
 * dialect (compiler, adapter, introspector) with a driver that holds the connection's mutex
 * (connection.ts) from acquire to release, so a Kysely transaction and a store operation never
 * interleave. Transactions begin IMMEDIATE: the write lock is taken at BEGIN, so a commit of
 * another process (the CLI) can never overtake the transaction's snapshot (SQLITE_BUSY_SNAPSHOT).
 */
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, SqliteDialect } from 'kysely';
import type { SqliteConnection } from './connection.js';

class Lease implements DatabaseConnection {
  constructor(private readonly connection: SqliteConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.connection.execute<R>(query);
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the signature is Kysely's.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error(
      'streaming (.stream()) is not supported on SQLite here: read with .execute() and a limit',
    );
  }
}

class GuardedSqliteDriver implements Driver {
  private readonly lease: Lease;

  constructor(private readonly connection: SqliteConnection) {
    this.lease = new Lease(connection);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.connection.acquire();
    return this.lease;
  }

  async releaseConnection(): Promise<void> {
    this.connection.release();
  }

  async beginTransaction(lease: DatabaseConnection): Promise<void> {
    await lease.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(lease: DatabaseConnection): Promise<void> {
    await lease.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(lease: DatabaseConnection): Promise<void> {
    // SQLite may have rolled back by itself (an I/O error, a full disk).
    if (this.connection.database.inTransaction) await lease.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    // After whatever holds or waits for the connection; what comes later fails at once (not open).
    await this.connection.acquire();
    this.connection.database.close();
    this.connection.release();
  }
}

/** Kysely's SQLite dialect on the guarded connection. */
export class GuardedSqliteDialect extends SqliteDialect {
  constructor(private readonly connection: SqliteConnection) {
    super({ database: connection.database });
  }

  override createDriver(): Driver {
    return new GuardedSqliteDriver(this.connection);
  }
}
