/**
 * Reads the statistics of round-trips.ts for one database of the private cluster, over a
 * connection to another database (`postgres`), so the reading itself is not counted.
 *
 * pg_stat_statements counts a statement when it ends. pg_stat_database's transaction counters
 * are per-backend until the backend flushes them: at most once a second while busy, and a busy
 * backend that turns idle within a second of its last flush waits PGSTAT_IDLE_INTERVAL (10 s)
 * before flushing (PostgreSQL 15+, src/backend/utils/activity/pgstat.c). So a window opens and
 * closes only after the database has been idle for SETTLE_MS.
 */
import pg from 'pg';
import type { Background, RoundTrips, StatementCount, StatsSnapshot } from './round-trips.js';
import { backgroundRate, perRequest, withoutBackground } from './round-trips.js';

export const SETTLE_MS = 11_000;

export class PgStats {
  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async connect(adminUrl: string, database: string): Promise<PgStats> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    return new PgStats(client, database);
  }

  /**
   * Top-level statements only: statements run inside the server (foreign-key checks, functions)
   * are no round trips; the cluster tracks only top-level ones anyway (bench/postgres.ts).
   */
  async snapshot(): Promise<StatsSnapshot> {
    const statements = await this.client.query<{ queryid: string; query: string; calls: string }>(
      `select queryid::text, query, calls::text from pg_stat_statements s
        join pg_database d on d.oid = s.dbid where d.datname = $1 and s.toplevel`,
      [this.database],
    );
    const xact = await this.client.query<{ commits: string; rollbacks: string }>(
      'select xact_commit::text as commits, xact_rollback::text as rollbacks from pg_stat_database where datname = $1',
      [this.database],
    );
    const byId = new Map<string, StatementCount>();
    for (const row of statements.rows) {
      // One queryid may appear once per user and top-level flag: add them up.
      const calls = (byId.get(row.queryid)?.calls ?? 0) + Number(row.calls);
      byId.set(row.queryid, { query: row.query, calls });
    }
    return {
      statements: byId,
      commits: Number(xact.rows[0]?.commits ?? 0),
      rollbacks: Number(xact.rows[0]?.rollbacks ?? 0),
    };
  }

  async reset(): Promise<void> {
    await this.client.query('select pg_stat_statements_reset()');
  }

  /** Waits until every backend has flushed its transaction counters (see above). */
  async settle(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** How long the idle window is held open before its closing settle (see `measureBackground`). */
export const IDLE_WINDOW_MS = 30_000;

/**
 * Counts the round trips of one window (the measured runs of one scenario). The servers' own
 * timers and the cluster write in every window whether requests come or not; over a short run
 * of few requests they showed as 0.1 transaction a request (two instances, docs/performance.md
 * "PostgreSQL"). So once, before the first window, an idle window of the same shape (settle,
 * reset, IDLE_WINDOW_MS, settle) measures that background per second, and each window's
 * figures are given with its share taken out (`withoutBackground`) and shown beside them.
 */
export class RoundTripCounter {
  private before: StatsSnapshot | undefined;
  private openedAt = 0;
  private background: Background | undefined;

  constructor(
    private readonly stats: PgStats,
    private readonly idleWindowMs = IDLE_WINDOW_MS,
  ) {}

  /** The servers' background per second, from one idle window (measured once). */
  async measureBackground(): Promise<Background> {
    if (this.background) return this.background;
    await this.open();
    await new Promise((resolve) => setTimeout(resolve, this.idleWindowMs));
    const { counted, seconds } = await this.close(1);
    this.background = backgroundRate(counted, seconds);
    return this.background;
  }

  async start(): Promise<void> {
    await this.measureBackground();
    await this.open();
  }

  async finish(requests: number): Promise<RoundTrips> {
    const { counted, seconds } = await this.close(requests);
    return withoutBackground(counted, this.background!, seconds);
  }

  private async open(): Promise<void> {
    await this.stats.settle();
    await this.stats.reset();
    this.before = await this.stats.snapshot();
    this.openedAt = Date.now();
  }

  private async close(requests: number): Promise<{ counted: RoundTrips; seconds: number }> {
    if (!this.before) throw new Error('RoundTripCounter.finish before start');
    await this.stats.settle();
    const after = await this.stats.snapshot();
    const seconds = (Date.now() - this.openedAt) / 1000;
    const counted = perRequest(this.before, after, requests);
    this.before = undefined;
    return { counted, seconds };
  }
}
