/**
 * Kysely's SQLite driver, rebuilt for a busy server (docs/performance.md):
 *
 * - SQLite has one connection, so requests queue for it. Kysely's own driver wakes every waiter
 *   on each release and all but one go back to sleep; here waiters form a FIFO queue and a
 *   release hands the connection to the next one directly.
 * - Prepared statements are kept per SQL text (Kysely prepares every query anew), and rows are
 *   read as arrays and turned into objects by a function compiled per statement (rows.ts).
 * - Group commit: a commit costs more than the statements of a token request on this hardware
 *   (lock calls, a WAL header and a frame per page), so the transactions that run in one turn of
 *   the event loop share one. Its commit hands the connection on and resolves only once the
 *   shared COMMIT has returned: no answer is sent before its writes are committed. A failed
 *   transaction leaves the others alone: the batch runs inside one savepoint, and the driver
 *   keeps the write statements of the batch's finished transactions; a failure rolls back to
 *   that savepoint and runs those statements again, which on the same state and the same
 *   write lock does exactly what they did. A savepoint per transaction would have copied every
 *   page each transaction changed into the savepoint journal (~10 µs of a ~160 µs code
 *   exchange); the batch's savepoint copies each page once. A failed COMMIT (or a batch SQLite
 *   rolled back by itself) rejects every transaction of the batch.
 * - A query outside a transaction may run at once (`runImmediately`) when nothing holds the
 *   connection, and a query of a transaction begun with `inTransaction` (transaction.ts) while
 *   that transaction holds it: either way without Kysely's chain of promises. Such a transaction
 *   itself begins at once when nothing holds the connection (`beginNow`, transaction-now.ts).
 *
 * - Reads of one turn share one read transaction: a read outside a transaction with no batch open
 *   opens a batch that only reads, committed at the end of the turn like the others. In WAL mode
 *   SQLite takes and drops a read lock in the -shm file (two fcntl calls) around every statement
 *   in autocommit; with 16 requests in flight one turn answers several, and the protected GET
 *   went from 43 to 36 µs of CPU (docs/performance.md). A turn's reads see the database as it
 *   was at its first read: another process's commit shows from the next turn on.
 *
 * Reads outside a transaction see the work of transactions whose shared commit is pending (as
 * one connection always did); a write outside a transaction first commits the pending batch, so
 * it never resolves before it is committed.
 */
import type SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type TransactionSettings,
} from 'kysely';
import { ChangeStamps } from './change-stamps.js';
import { assertDeterministicWrite } from './deterministic.js';
import { NOT_NOW, type ReadNow, readNow } from './read-now.js';
import { type RowBuilder, rowBuilder } from './rows.js';

/** Distinct SQL texts kept prepared; queries beyond this (unusual IN-list lengths) are prepared each time. */
const STATEMENT_CACHE_SIZE = 500;

interface Prepared {
  readonly statement: SQLite.Statement;
  /** Builds its rows from arrays (the statement is in raw mode); undefined when it returns none. */
  readonly row: RowBuilder | undefined;
  /** Whether it changes nothing. */
  readonly readonly: boolean;
}

/** A write statement that ran, as it ran: replayed after a rollback to the batch's savepoint. */
interface Write {
  readonly prepared: Prepared;
  readonly parameters: unknown[];
}

/** Transactions that wait for one shared COMMIT. */
interface Batch {
  readonly committed: Promise<void>;
  /** False for the read transaction opened by a read outside any transaction. */
  readonly writes: boolean;
  /** The write statements of its transactions, in the order they ran. */
  readonly log: Write[];
  resolve(): void;
  reject(error: unknown): void;
}

function newBatch(writes: boolean): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Every transaction of the batch awaits it; this keeps a batch nobody awaits from crashing the process.
  committed.catch(() => undefined);
  return { committed, writes, log: [], resolve, reject };
}

export class QueuedSqliteDriver implements Driver {
  private readonly statements = new Map<string, Prepared>();
  private readonly own = new Map<string, SQLite.Statement>();
  private readonly waiting: Array<(lease: Lease) => void> = [];
  private holder: Lease | undefined;
  private batch: Batch | undefined;
  /** What has changed since a result was read (change-stamps.ts): bumped here on every write. */
  readonly stamps = new ChangeStamps();
  /** PRAGMA data_version when last read: it moves when another connection commits. */
  private dataVersion: unknown;
  private readonly dataVersionQuery: SQLite.Statement;

  constructor(private readonly database: SQLite.Database) {
    this.dataVersionQuery = database.prepare('pragma data_version').pluck();
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.holder) {
      this.holder = new Lease(this);
      return Promise.resolve(this.holder);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.release(connection as Lease);
  }

  private release(lease: Lease): void {
    if (lease.released) return;
    lease.released = true;
    const next = this.waiting.shift();
    if (!next) {
      this.holder = undefined;
      return;
    }
    // The connection passes straight to the next waiter: nobody else can take it in between.
    this.holder = new Lease(this);
    next(this.holder);
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    this.begin(connection as Lease);
  }

  /**
   * A transaction begun now on a lease of its own when nothing holds the connection (then nobody
   * waits for it either: a release hands it to the next waiter directly); else undefined, and the
   * caller takes Kysely's path, which waits its turn (transaction-now.ts).
   */
  beginNow(): Lease | undefined {
    if (this.holder) return undefined;
    const lease = new Lease(this);
    this.holder = lease;
    try {
      this.begin(lease);
    } catch (error) {
      this.release(lease);
      throw error;
    }
    return lease;
  }

  /** A transaction's rollback, then the connection passes on (Kysely releases it after rollbackTransaction). */
  async rollbackAndRelease(lease: Lease): Promise<void> {
    try {
      await this.rollbackTransaction(lease);
    } finally {
      this.release(lease);
    }
  }

  private begin(lease: Lease): void {
    // SQLite rolls a whole transaction back on some errors (I/O, a full disk): that batch is lost,
    // and this transaction must not run in autocommit mode as if it belonged to it.
    if (this.batch && !this.database.inTransaction) {
      this.failBatch(new Error('the shared SQLite transaction was rolled back; retry the request'));
    }
    // A batch that only read is ended first, so the transaction's snapshot starts with it, as it
    // did before reads shared a turn: a write never upgrades a snapshot another process may have
    // overtaken meanwhile (SQLITE_BUSY_SNAPSHOT).
    if (this.batch && !this.batch.writes) this.commitBatch();
    if (!this.batch) {
      this.openBatch(true);
      this.execute('savepoint batch');
    }
    lease.logStart = this.batch!.log.length;
    lease.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    lease.inTransaction = false;
    const { committed } = this.batch!;
    this.release(lease);
    await committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // Released already: its shared COMMIT failed, and the batch was rolled back with it.
    if (lease.released) return;
    lease.inTransaction = false;
    this.stamps.all();
    const batch = this.batch;
    if (!batch) return;
    // Back to the batch's start, then the batch's earlier transactions again: the same
    // statements on the same state, under the write lock the batch still holds.
    batch.log.length = lease.logStart;
    try {
      this.execute('rollback to batch');
      for (const { prepared, parameters } of batch.log) {
        if (prepared.row) prepared.statement.all(parameters);
        else prepared.statement.run(parameters);
      }
    } catch (error) {
      // SQLite rolled the whole transaction back by itself (an I/O error, a full disk), or a
      // statement could not run again: the batch is lost.
      if (this.database.inTransaction) this.database.exec('rollback');
      this.failBatch(error);
    }
  }

  savepoint(): Promise<void> {
    return refuseSavepoints();
  }

  rollbackToSavepoint(): Promise<void> {
    return refuseSavepoints();
  }

  releaseSavepoint(): Promise<void> {
    return refuseSavepoints();
  }

  /** The SQL of the statements kept prepared, and whether each only reads (the invariant tests). */
  preparedStatements(): Array<{ readonly sql: string; readonly readonly: boolean }> {
    return [...this.statements].map(([sql, { readonly }]) => ({ sql, readonly }));
  }

  async destroy(): Promise<void> {
    this.commitBatch();
    this.database.close();
  }

  /** Runs the query now when nothing holds the connection; else undefined. */
  runNow<R>(query: CompiledQuery): QueryResult<R> | undefined {
    return this.holder ? undefined : this.run<R>(query, false);
  }

  /**
   * The change stamp of what a read run now would see, when one can run now (nothing holds the
   * connection); else undefined. Opens the turn's read transaction if none is open, which checks
   * for commits by other connections.
   */
  snapshotStamp(): number | undefined {
    if (this.holder) return undefined;
    if (!this.batch) this.openBatch(false);
    return this.stamps.now;
  }

  /**
   * Runs `task` with the connection held and no transaction open: the pending batch is committed
   * first, and queries and transactions that come meanwhile wait their turn behind it.
   */
  async quiesce(task: () => Promise<void>): Promise<void> {
    const lease = (await this.acquireConnection()) as Lease;
    try {
      this.commitBatch();
      await task();
    } finally {
      this.release(lease);
    }
  }

  /**
   * Ends the turn's read transaction, if one is open and nothing holds the connection: the next
   * read sees every commit made so far, by any connection (worker-dialect.ts calls it when a
   * write of its connection has committed). A turn boundary, earlier: the reads of a turn share
   * a snapshot for speed, not for consistency.
   */
  endReadSnapshot(): void {
    if (!this.holder && this.batch && !this.batch.writes) this.commitBatch();
  }

  /** The lease of the transaction that holds the connection, if one does. */
  transactionHolder(): Lease | undefined {
    return this.holder?.inTransaction ? this.holder : undefined;
  }

  run<R>(query: CompiledQuery, inTransaction: boolean): QueryResult<R> {
    const prepared = this.prepare(query.sql);
    const { statement, row, readonly } = prepared;
    if (!inTransaction) {
      // A write outside a transaction must not answer before it is committed.
      if (!readonly) this.commitBatch();
      else if (!this.batch) this.openBatch(false);
    }
    if (!readonly) this.stamps.write(query.sql);
    const parameters = query.parameters as unknown[];
    let result: QueryResult<R>;
    if (row) {
      const values = statement.all(parameters) as unknown[][];
      const rows = new Array<R>(values.length);
      for (let i = 0; i < values.length; i++) rows[i] = row(values[i]!) as R;
      result = { rows };
    } else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      result = { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    }
    // Only a statement that ran is kept: a failed one changed nothing (SQLite undid it).
    if (inTransaction && !readonly) this.batch?.log.push({ prepared, parameters });
    return result;
  }

  /**
   * Opens the turn's shared transaction; it is committed once the turn's I/O callbacks have run.
   * A batch of transactions takes the write lock at its BEGIN (IMMEDIATE), waiting for another
   * connection's statement (busy_timeout) if one holds it: a deferred BEGIN would start the
   * snapshot at a transaction's first read, and a commit by another connection (the prune's, on
   * its worker thread: worker-dialect.ts) before its first write would fail that write with
   * SQLITE_BUSY_SNAPSHOT, which no wait cures (test/unit/worker-dialect.test.ts).
   */
  private openBatch(writes: boolean): void {
    this.execute(writes ? 'begin immediate' : 'begin');
    const version = this.dataVersionQuery.get();
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.stamps.all();
    }
    this.batch = newBatch(writes);
    setImmediate(() => this.commitWhenFree());
  }

  /** The driver's own statements (BEGIN, COMMIT, the batch's savepoint): kept apart from callers'. */
  private execute(sql: string): void {
    let statement = this.own.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.own.set(sql, statement);
    }
    statement.run();
  }

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      // Checked once per SQL text, when it is first prepared: not on every run.
      if (SAVEPOINT_SQL.test(sql)) throw new Error(SAVEPOINTS_UNSUPPORTED);
      const statement = this.database.prepare(sql);
      // `readonly` is a native getter: read once (below).
      const readonly = statement.readonly;
      if (!readonly) assertDeterministicWrite(sql);
      // `reader` and `readonly` are native getters: read once.
      const row = statement.reader ? rowBuilder(statement.columns().map((c) => c.name)) : undefined;
      if (row) statement.raw(true);
      prepared = { statement, row, readonly };
      if (this.statements.size < STATEMENT_CACHE_SIZE) this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** The end of the event-loop turn that opened the batch: commit it, taking a turn in the queue if need be. */
  private commitWhenFree(): void {
    if (!this.batch) return;
    if (!this.holder) {
      this.commitBatch();
      return;
    }
    this.waiting.push((lease) => {
      this.commitBatch();
      this.release(lease);
    });
  }

  private commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.execute('commit');
      batch.resolve();
    } catch (error) {
      this.stamps.all();
      if (this.database.inTransaction) this.database.exec('rollback');
      batch.reject(error);
    }
  }

  private failBatch(error: unknown): void {
    this.stamps.all();
    this.batch?.reject(error);
    this.batch = undefined;
  }
}

/** A savepoint sent as a query (SAVEPOINT, RELEASE, ROLLBACK TO): the driver owns the batch's. */
const SAVEPOINT_SQL = /^\s*(savepoint|release|rollback\s+(transaction\s+)?to)\b/i;

const SAVEPOINTS_UNSUPPORTED =
  'savepoints are not supported by the SQLite driver: the transactions of one event-loop turn already share one savepoint, which a failed transaction rolls back to before the others run again (group commit, src/storage/sqlite/README.md); use a transaction of its own instead of a nested one';

function refuseSavepoints(): Promise<never> {
  return Promise.reject(new Error(SAVEPOINTS_UNSUPPORTED));
}

/** One turn with the connection: what Kysely holds between acquire and release. */
export class Lease implements DatabaseConnection {
  inTransaction = false;
  /** Where its transaction's writes begin in the batch's log. */
  logStart = 0;
  released = false;

  constructor(private readonly driver: QueuedSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.run<R>(query, this.inTransaction);
  }

  /** Runs the query now while this lease's transaction holds the connection; else undefined (Kysely's path decides). */
  runNow<R>(query: CompiledQuery): QueryResult<R> | undefined {
    return this.inTransaction ? this.driver.run<R>(query, true) : undefined;
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the signature is Kysely's.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error(
      "streaming (.stream()) is not supported by the SQLite driver: a stream would hold the one connection across turns of the event loop, while each turn's shared transaction must commit at its end (group commit, src/storage/sqlite/README.md); read with .execute() and a limit",
    );
  }
}

/** Kysely's SQLite dialect (compiler, adapter, introspector) with the queued driver above. */
export class QueuedSqliteDialect extends SqliteDialect {
  private driver: QueuedSqliteDriver | undefined;

  constructor(private readonly database: SQLite.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    this.driver = new QueuedSqliteDriver(this.database);
    return this.driver;
  }

  runNow<R>(query: CompiledQuery): QueryResult<R> | undefined {
    return this.driver?.runNow<R>(query);
  }

  transactionHolder(): Lease | undefined {
    return this.driver?.transactionHolder();
  }

  /** The driver itself: transaction-now.ts begins, commits and rolls back on it. */
  queuedDriver(): QueuedSqliteDriver | undefined {
    return this.driver;
  }

  snapshotStamp(): number | undefined {
    return this.driver?.snapshotStamp();
  }

  changedSince(stamp: number, tables: readonly string[], inserts: boolean): boolean {
    return this.driver ? this.driver.stamps.changedSince(stamp, tables, inserts) : true;
  }

  endReadSnapshot(): void {
    this.driver?.endReadSnapshot();
  }

  quiesce(task: () => Promise<void>): Promise<void> {
    if (!this.driver) throw new Error('the SQLite driver is not created yet');
    return this.driver.quiesce(task);
  }

  preparedStatements(): Array<{ readonly sql: string; readonly readonly: boolean }> {
    return this.driver?.preparedStatements() ?? [];
  }
}

/** What runs a query at once when it may: the dialect for a Kysely instance, the lease for a transaction. */
interface Runner {
  runNow<R>(query: CompiledQuery): QueryResult<R> | undefined;
}

const runners = new WeakMap<object, Runner>();

/** Lets `runImmediately` reach the connection of this Kysely instance (not of its transactions). */
export function allowImmediate(db: object, dialect: QueuedSqliteDialect): void {
  runners.set(db, dialect);
}

/**
 * A query outside any transaction, on SQLite, while nothing holds the connection (or of the
 * `inTransaction` transaction that holds it): run it now instead of through Kysely's connection
 * provider. better-sqlite3 is synchronous, so the answer is the same; what is saved is the chain
 * of promises around it. Undefined when the query must wait its turn (or the database is not
 * SQLite); throws what SQLite throws.
 */
function runSynchronously<R>(db: object, query: CompiledQuery): QueryResult<R> | undefined {
  return runners.get(db)?.runNow<R>(query);
}

/** The rows of a read run now when it can be (see runSynchronously); else NOT_NOW. */
export function readRowsNow<R>(db: object, query: CompiledQuery): ReadNow<R[]> {
  const result = runSynchronously<R>(db, query);
  return result ? readNow(result.rows) : NOT_NOW;
}

/** The first row (or undefined) of a read run now when it can be; else NOT_NOW. */
export function readFirstNow<R>(db: object, query: CompiledQuery): ReadNow<R | undefined> {
  const result = runSynchronously<R>(db, query);
  return result ? readNow(result.rows[0]) : NOT_NOW;
}

/** `runSynchronously`, answered as a promise (a rejection rather than a throw); undefined when it cannot run now. */
export function runImmediately<R>(db: object, query: CompiledQuery): Promise<QueryResult<R>> | undefined {
  try {
    const result = runSynchronously<R>(db, query);
    return result && Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * For read-cache.ts: the change stamp a read made now would carry, when this Kysely instance is
 * SQLite and a read can run now; else undefined (nothing may be cached or answered from a cache).
 */
export function snapshotStamp(db: object): number | undefined {
  const dialect = runners.get(db);
  return dialect instanceof QueuedSqliteDialect ? dialect.snapshotStamp() : undefined;
}

/**
 * Whether a change that may touch any of `tables` (with `inserts`, also a plain INSERT into one)
 * came after `stamp`; true when unknown.
 */
export function changedSince(
  db: object,
  stamp: number,
  tables: readonly string[],
  inserts: boolean,
): boolean {
  const dialect = runners.get(db);
  return dialect instanceof QueuedSqliteDialect ? dialect.changedSince(stamp, tables, inserts) : true;
}

/**
 * The SQL this Kysely instance's SQLite connection keeps prepared (up to STATEMENT_CACHE_SIZE),
 * and whether each only reads: what test/unit/sqlite-invariants.test.ts checks after a full flow.
 */
export function preparedStatements(db: object): Array<{ readonly sql: string; readonly readonly: boolean }> {
  const dialect = runners.get(db);
  if (!(dialect instanceof QueuedSqliteDialect))
    throw new Error('not a Kysely instance of the SQLite driver');
  return dialect.preparedStatements();
}

/**
 * Called first thing in a transaction's callback (transaction.ts): the connection is then held by
 * that transaction, so its queries can run at once, on its own lease, for as long as it holds it.
 */
export function allowImmediateInTransaction(db: object, trx: object): void {
  const dialect = runners.get(db);
  const lease = dialect instanceof QueuedSqliteDialect ? dialect.transactionHolder() : undefined;
  if (lease) runners.set(trx, lease);
}

/** The SQLite dialect of this Kysely instance, when it is one (transaction-now.ts). */
export function queuedDialectOf(db: object): QueuedSqliteDialect | undefined {
  const dialect = runners.get(db);
  return dialect instanceof QueuedSqliteDialect ? dialect : undefined;
}

/** Lets `runImmediately` reach the lease a transaction holds (transaction-now.ts). */
export function allowImmediateOnLease(trx: object, lease: Lease): void {
  runners.set(trx, lease);
}
