/**
 * A Kysely dialect whose statements run on a worker thread, on a connection of its own to the
 * same SQLite file: for bulk writes that must not hold the event loop (the server's prune).
 * better-sqlite3 is synchronous, so on the server's connection (driver.ts) a statement is a pause
 * of the event loop as long as it runs: a prune's statements, bounded to ~3 ms each, still set
 * the p99 of requests under load and, now and then, a loop delay of 70 ms (docs/performance.md
 * "Cost as the database grows"). Here the event loop only posts the statement and awaits its
 * answer. The server takes it with PRUNE_THREAD=worker: it pays where the worker gets a core the
 * load leaves idle; where it shares the server's core, or the load's, the scheduler's slices
 * held requests longer than the short statements between them, and its statements, slowed,
 * made the prune 15 times longer (docs/performance.md, the same section).
 *
 * What this relies on, each guarded by a test:
 * - The server's reads never wait for another connection's write (WAL readers do not block on a
 *   writer), and the driver drops its caches at another connection's commit
 *   (test/unit/read-cache.test.ts "reads again after another connection's commit, from the next
 *   turn on"); a write here ends its turn's read snapshot before the caller is told
 *   (`committed`), so the caller reads its effect there at once (test/unit/worker-dialect.test.ts
 *   "shows a write to a caller that awaited it, …").
 * - A server transaction that writes takes the write lock at its BEGIN (driver.ts), so a commit
 *   made here between its read and its write never fails it with SQLITE_BUSY_SNAPSHOT; it waits
 *   for the statement here to end (busy_timeout) and goes on (test/unit/worker-dialect.test.ts).
 *
 * Each statement is its own transaction (autocommit): transactions are not offered, since a
 * transaction held across messages would hold the write lock while the event loop waits on it.
 * Statements run in the order they were sent.
 */
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { SQLITE_DRIVER } from './binding.js';

// Evaluated CommonJS, as the checkpoint worker's (wal-checkpoints.ts): the same text runs from
// the build and from the sources under tsx, and the driver is required by its resolved path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const database = new SQLite(workerData.path);
// The server connection's own (connect.ts); journal_mode = WAL is the file's already.
for (const pragma of workerData.pragmas) database.pragma(pragma);
const statements = new Map();
const prepare = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    statement = database.prepare(sql);
    if (statements.size < 100) statements.set(sql, statement);
  }
  return statement;
};
parentPort.on('message', (message) => {
  if (message === 'stop') {
    database.close();
    parentPort.close();
    return;
  }
  const { id, sql } = message;
  // A Buffer arrives as a plain Uint8Array (structured clone); the driver binds Buffers.
  const parameters = message.parameters.map((p) =>
    p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p,
  );
  try {
    const statement = prepare(sql);
    if (statement.reader) {
      // DELETE … RETURNING reads rows and writes: \`write\` tells the two apart.
      parentPort.postMessage({ id, rows: statement.all(parameters), write: !statement.readonly });
    } else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      parentPort.postMessage({ id, changes, lastInsertRowid: BigInt(lastInsertRowid) });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

type Answer =
  | { id: number; rows: unknown[]; write: boolean }
  | { id: number; changes: number; lastInsertRowid: bigint }
  | { id: number; error: { message: string; code?: string } };

interface Pending {
  resolve(result: QueryResult<unknown>): void;
  reject(error: unknown): void;
}

const NO_TRANSACTIONS =
  'transactions are not offered on the worker-thread SQLite connection: each statement is its own transaction, so none holds the write lock while the event loop waits (src/storage/sqlite/worker-dialect.ts); run the transaction on the server connection';

export interface WorkerDialectOptions {
  /** The SQLite file (absolute path). */
  readonly path: string;
  /**
   * The per-connection settings of the server's connection (connect.ts), among them how long a
   * statement waits for the write lock another connection holds (busy_timeout).
   */
  readonly pragmas: readonly string[];
  /**
   * Told when a write has committed here, before its caller is: the server connection ends its
   * turn's read snapshot then (driver.ts `endReadSnapshot`), so a caller that awaited a write
   * here reads its effect there at once, not from the next turn on.
   */
  readonly committed?: () => void;
}

class WorkerSqliteDriver implements Driver, DatabaseConnection {
  private worker: Worker | undefined;
  private exited: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(private readonly options: WorkerDialectOptions) {}

  async init(): Promise<void> {}

  /** The worker, started at the first statement and again after it failed. */
  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: SQLITE_DRIVER,
        path: this.options.path,
        pragmas: this.options.pragmas,
      },
    });
    worker.unref();
    worker.on('message', (answer: Answer) => this.answered(answer));
    const failAll = (error: unknown) => {
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    worker.once('error', failAll);
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        if (this.worker === worker) this.worker = undefined;
        failAll(new Error('the SQLite worker thread stopped before it answered'));
        resolve();
      }),
    );
    this.worker = worker;
    return worker;
  }

  private answered(answer: Answer): void {
    const waiting = this.pending.get(answer.id);
    if (!waiting) return;
    this.pending.delete(answer.id);
    // Unreferenced while idle, so an idle worker never keeps the process alive.
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in answer) {
      waiting.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      return;
    }
    if (!('rows' in answer) || answer.write) this.options.committed?.();
    if ('rows' in answer) {
      waiting.resolve({ rows: answer.rows });
    } else {
      waiting.resolve({
        rows: [],
        numAffectedRows: BigInt(answer.changes),
        insertId: answer.lastInsertRowid,
      });
    }
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<QueryResult<R>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as Pending['resolve'], reject });
      worker.ref();
      worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the signature is Kysely's.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error(
      'streaming is not supported by the worker-thread SQLite connection; read with .execute() and a limit',
    );
  }

  /** One connection, shared: the worker runs statements in the order they were posted. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return this;
  }

  async releaseConnection(): Promise<void> {}

  beginTransaction(): Promise<void> {
    return Promise.reject(new Error(NO_TRANSACTIONS));
  }

  commitTransaction(): Promise<void> {
    return Promise.reject(new Error(NO_TRANSACTIONS));
  }

  rollbackTransaction(): Promise<void> {
    return Promise.reject(new Error(NO_TRANSACTIONS));
  }

  async destroy(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    worker.postMessage('stop');
    await this.exited;
  }
}

/** Kysely's SQLite compiler, adapter and introspector, with statements run on a worker thread. */
export class WorkerSqliteDialect implements Dialect {
  constructor(private readonly options: WorkerDialectOptions) {}

  createDriver(): Driver {
    return new WorkerSqliteDriver(this.options);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
