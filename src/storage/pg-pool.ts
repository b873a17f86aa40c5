/**
 * The PostgreSQL pool, set up to outlive the database going away (docs/deploy.md "When things
 * fail"): no connection error ever reaches the process as an unhandled `error` event, no wait
 * for the database lasts longer than DATABASE_TIMEOUT, and a connection that failed or timed
 * out is dropped instead of handed to the next request. When the server is back, the next
 * request simply opens a new connection.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { StaleStatement, statementName } from './statement-names.js';

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
  /**
   * DATABASE_NAMED_STATEMENTS: the fixed statements (prepared.ts's, and executeFixed's writes)
   * sent named, parsed and planned once per connection (statement-names.ts). Off for a pooler
   * that does not keep a connection's prepared statements, PgBouncer before 1.21 in transaction
   * mode (docs/deploy.md).
   */
  readonly namedStatements: boolean;
}

/**
 * For each pool, the schema changes its connections have seen: a connection that prepared its
 * statements before the last one is dropped when next checked out, instead of failing once per
 * named statement (statement-names.ts, StaleStatement).
 */
interface Plans {
  readonly named: boolean;
  epoch: number;
  readonly bornIn: WeakMap<pg.ClientBase, number>;
}
const plansOf = new WeakMap<pg.Pool, Plans>();

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
  // Each new connection also notes the schema changes seen so far (Plans).
  const plans: Plans = { named: options.namedStatements, epoch: 0, bornIn: new WeakMap() };
  plansOf.set(pool, plans);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    plans.bornIn.set(client, plans.epoch);
  });
  return pool;
}

/** A failure of the connection itself, not of the statement (a statement's carries a SQLSTATE). */
const connectionFailed = (error: unknown): boolean => !(error instanceof pg.DatabaseError);

/** SQLSTATE 0A000, which a named statement's "cached plan must not change result type" carries. */
const FEATURE_NOT_SUPPORTED = '0A000';

/** One checkout: a statement that failed with its connection marks it broken, and release drops it. */
class Checkout implements PostgresPoolClient {
  private broken: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly timeoutMs: number | undefined,
    private readonly plans: Plans | undefined,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's overloads (statement or cursor) in one body.
  query(sqlOrCursor: any, parameters?: ReadonlyArray<unknown>): any {
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor);
    // The ROLLBACK after a failed statement would otherwise wait out the timeout once more.
    if (this.broken) return Promise.reject(this.broken);
    const name = this.plans?.named ? statementName(sqlOrCursor) : undefined;
    // node-postgres reads `query_timeout` from a statement's config; its types leave it out.
    const config = {
      text: sqlOrCursor,
      values: parameters,
      query_timeout: this.timeoutMs,
      ...(name ? { name } : {}),
    } as pg.QueryConfig;
    return this.client.query(config).catch((error: Error) => {
      if (connectionFailed(error)) this.broken = error;
      else if (name && (error as pg.DatabaseError).code === FEATURE_NOT_SUPPORTED) {
        // "cached plan must not change result type": every connection prepared before now goes.
        // Only the first to find the change counts it; newer connections prepared against it.
        const plans = this.plans!;
        if (plans.bornIn.get(this.client) === plans.epoch) plans.epoch += 1;
        this.broken = new StaleStatement(error);
      }
      throw this.broken ?? error;
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
  const plans = plansOf.get(pool);
  return {
    connect: async () => {
      for (;;) {
        const client = await pool.connect();
        const born = plans?.bornIn.get(client);
        if (!plans || born === undefined || born === plans.epoch)
          return new Checkout(client, timeoutMs, plans);
        // Prepared before the schema changed: closed, and the pool opens a new one.
        client.release(new Error('named statements prepared before a schema change'));
      }
    },
    end: () => (owner ? pool.end() : Promise.resolve()),
  };
}
