/**
 * The PostgreSQL pool, set up to outlive the database going away (docs/deploy.md "When things
 * fail"): no connection error ever reaches the process as an unhandled `error` event, no wait
 * for the database lasts longer than DATABASE_TIMEOUT, and a connection that failed or timed
 * out is dropped instead of handed to the next request. When the server is back, the next
 * request simply opens a new connection.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';

const INT8_OID = 20;
// Epoch-second columns and counts are int8; they fit a JS number, so read them as one.
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PgPoolOptions {
  readonly max: number;
  readonly schema: string | undefined;
  /** DATABASE_TIMEOUT in milliseconds: connecting, waiting for a pooled connection, one statement. */
  readonly timeoutMs: number;
}

export function createPgPool(connectionString: string, options: PgPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    types: pgTypes,
    // Also bounds the wait for a free connection when all are busy (pg-pool's pending queue).
    connectionTimeoutMillis: options.timeoutMs,
    keepAlive: true,
    // A transaction left open by an instance that lost its connection holds row locks (a code,
    // a refresh token) that other instances wait for: the server ends it after this long.
    idle_in_transaction_session_timeout: Math.max(10_000, 2 * options.timeoutMs),
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle connection that breaks (the server restarts) is dropped by the pool; this keeps its
  // `error` event from ending the process.
  pool.on('error', () => undefined);
  // A connection checked out when it breaks has no listener of the pool's: without this one its
  // `error` event ended the process. Its queries fail with the error anyway (node-postgres
  // rejects every pending query of a broken connection), and `release(error)` drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A failure of the connection itself, not of the statement (a statement's carries a SQLSTATE). */
const connectionFailed = (error: unknown): boolean => !(error instanceof pg.DatabaseError);

/** One checkout: a statement that failed with its connection marks it broken, and release drops it. */
class Checkout implements PostgresPoolClient {
  private broken: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly timeoutMs: number | undefined,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's overloads (statement or cursor) in one body.
  query(sqlOrCursor: any, parameters?: ReadonlyArray<unknown>): any {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor);
    // The ROLLBACK after a failed statement would otherwise wait out the timeout once more.
    if (this.broken) return Promise.reject(this.broken);
    // node-postgres reads `query_timeout` from a statement's config; its types leave it out.
    const config = { text: sqlOrCursor, values: parameters, query_timeout: this.timeoutMs } as pg.QueryConfig;
    return this.client.query(config).catch((error: Error) => {
      if (connectionFailed(error)) this.broken = error;
      throw error;
    }) as Promise<PostgresQueryResult<unknown>>;
  }

  release(): void {
    // With an error, pg-pool closes the connection instead of keeping it: after a read timeout
    // the server's answer may still arrive, and would be taken for the next statement's.
    this.client.release(this.broken);
  }
}

/**
 * What Kysely sees of the pool. With `timeoutMs`, every statement waits at most that long for
 * its answer (node-postgres's `query_timeout`); without, statements may run as long as they need
 * (migrations, pruning: `Storage.maintenanceDb`). `end` is the pool's only for the owner.
 */
export function kyselyPool(pool: pg.Pool, timeoutMs: number | undefined, owner: boolean): PostgresPool {
  return {
    connect: async () => new Checkout(await pool.connect(), timeoutMs),
    end: () => (owner ? pool.end() : Promise.resolve()),
  };
}
