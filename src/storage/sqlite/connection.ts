/**
 * The one SQLite connection of a process, and its guard (docs/decisions.md "Storage on SQLite"):
 * one async mutex that every user of the connection holds while it uses it.
 *
 * - A store operation (store.ts's sections) runs with `now(work)`: `work` is ONE better-sqlite3
 *   transaction, synchronous from BEGIN IMMEDIATE (BEGIN DEFERRED with `read(work)`, for an
 *   operation that only reads) to COMMIT, so nothing can run between its
 *   statements and a failure rolls back only its own writes. When the mutex is free it runs at
 *   once and its value is returned as it is (no promise); else it waits for the mutex.
 * - The Kysely queries and transactions not (yet) in the store hold the same mutex from acquire to
 *   release (driver.ts): a Kysely transaction may await between its statements, and no store
 *   operation or other query runs inside it.
 *
 * Statements are prepared once per SQL text (better-sqlite3 prepares anew otherwise).
 */
import type SQLite from 'better-sqlite3';
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from '../schema.js';

/** Distinct SQL texts kept prepared; beyond this (unusual IN-list lengths) each is prepared anew. */
const STATEMENT_CACHE_SIZE = 500;

/** What a synchronous operation runs its statements on: inside its transaction, without await. */
export interface SyncSql {
  /** Compiles queries to SQLite's SQL (never run through it inside an operation). */
  readonly db: Kysely<Database>;
  execute<R>(query: CompiledQuery): QueryResult<R>;
}

/** A value available now, or a promise of it (the contract's MaybeNow). */
export type Now<T> = T | Promise<T>;

const promised = <T>(value: Now<T>): Promise<T> =>
  value instanceof Promise ? value : Promise.resolve(value);

export class SqliteConnection implements SyncSql {
  private readonly statements = new Map<string, SQLite.Statement>();
  private held = false;
  private readonly waiting: Array<() => void> = [];
  /** Set once the Kysely instance on this connection exists (connect.ts). */
  db!: Kysely<Database>;

  /**
   * The transaction function, made once: better-sqlite3 builds four wrappers per `transaction()`
   * call, which cost more than the BEGIN and COMMIT they run (docs/performance.md "SQLite
   * operations").
   */
  private readonly inTransaction: SQLite.Transaction<(work: (sql: SyncSql) => unknown) => unknown>;

  constructor(readonly database: SQLite.Database) {
    this.inTransaction = database.transaction((work: (sql: SyncSql) => unknown) => work(this));
  }

  /** Resolves once this caller holds the mutex; FIFO, a release hands it to the next waiter. */
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }

  /** Whether an operation would run at once. */
  get free(): boolean {
    return !this.held;
  }

  /**
   * Runs `work` as one IMMEDIATE transaction: now, answering its value, when the mutex is free;
   * else once the mutex is this caller's, as a promise. A failure rolls the transaction back and
   * is a rejection, never a throw.
   */
  now<T>(work: (sql: SyncSql) => T): Now<T> {
    return this.run(work, 'immediate');
  }

  /**
   * As `now`, for work that only reads: a DEFERRED transaction, which takes no write lock (one
   * snapshot for all its statements, without waiting for another process's writer).
   */
  read<T>(work: (sql: SyncSql) => T): Now<T> {
    return this.run(work, 'deferred');
  }

  private run<T>(work: (sql: SyncSql) => T, kind: 'immediate' | 'deferred'): Now<T> {
    if (!this.held) {
      this.held = true;
      try {
        return this.inTransaction[kind](work) as T;
      } catch (error) {
        return Promise.reject(error);
      } finally {
        this.release();
      }
    }
    return this.acquire().then(() => {
      try {
        return this.inTransaction[kind](work) as T;
      } finally {
        this.release();
      }
    });
  }

  /** As `now`, always answered as a promise (the contract's Promise-typed operations). */
  later<T>(work: (sql: SyncSql) => T): Promise<T> {
    return promised(this.now(work));
  }

  /** As `read`, always answered as a promise. */
  readLater<T>(work: (sql: SyncSql) => T): Promise<T> {
    return promised(this.read(work));
  }

  /** Runs one statement now; the caller holds the mutex (an operation, or a Kysely lease). */
  execute<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  private prepare(sql: string): SQLite.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      if (this.statements.size < STATEMENT_CACHE_SIZE) this.statements.set(sql, statement);
    }
    return statement;
  }
}
