/**
 * The shapes of the server's prune log lines the lab reads back (at debug level: `prune
 * statement times`, `pruned dead rows`). They are the server's log output, not its code: a
 * server that logs another shape shows as missing figures in the report, never as a wrong one.
 */

/** The statement-time buckets of the log line: ≤ 3 ms, ≤ 10, ≤ 30, and above the last. */
export const TIME_BUCKETS_MS = [3, 10, 30] as const;

/** One kind of row's statements in `prune statement times`. */
export interface KindTimes {
  statements: number;
  /** Rows the statements handled (deleted, or keys walked). */
  rows: number;
  slowestMs: number;
  /** Rows the slowest statement handled. */
  slowestRows: number;
  /** Statements per bucket of TIME_BUCKETS_MS, and above the last bound. */
  histogram: number[];
}

/** The prune's rests between statements: how many while requests were served, how many idle. */
export interface RestSummary {
  readonly underLoad: number;
  readonly idle: number;
  readonly ms: number;
}

/** The database file's read-through passes on a worker thread (SQLite). */
export interface WarmthSummary {
  readonly passes: number;
  readonly bytes: number;
  readonly ms: number;
}
