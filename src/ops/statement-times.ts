/**
 * What the statements of one prune took, per kind of row: the server's job logs it at debug
 * level beside its `pruned dead rows` line, one line a prune. A statement's time is from its
 * start to its answer (prune-batches.ts), so it counts what held it besides its rows: pages read
 * from disk, a checkpoint, a wait for the WAL's quiet restart. The slowest statement's size tells
 * these apart: a slow statement of the usual size met cold pages or waited; a slow one that is
 * large means the batch grew too far (docs/performance.md "Cost as the database grows").
 */

/** The kinds of statement a prune runs, each paced on its own (prune.ts). */
export type PruneKind =
  | 'codes'
  | 'accessTokens'
  | 'refreshTokens'
  | 'grants'
  | 'sessions'
  | 'rateLimits'
  | 'signinCounts'
  | 'clients';

/**
 * Upper bounds (ms) of the statement-time histogram: a prune under load keeps p99 within 2× only
 * while its statements stay within a few milliseconds (docs/performance.md "Cost as the database
 * grows"), so the count above each bound tells whether the slowest is a lone outlier or a habit.
 */
export const TIME_BUCKETS_MS = [3, 10, 30] as const;

export interface KindTimes {
  statements: number;
  /** Rows the statements handled (deleted, or keys walked). */
  rows: number;
  slowestMs: number;
  /** Rows the slowest statement handled. */
  slowestRows: number;
  /** Statements per bucket of TIME_BUCKETS_MS: ≤ 3 ms, ≤ 10, ≤ 30, and above the last bound. */
  histogram: number[];
}

/** Collects what each statement took; `summary` holds only the kinds that ran. */
export class StatementTimes {
  readonly summary: Partial<Record<PruneKind, KindTimes>> = {};

  record(kind: PruneKind, rows: number, ms: number): void {
    const times = this.summary[kind] ?? {
      statements: 0,
      rows: 0,
      slowestMs: 0,
      slowestRows: 0,
      histogram: TIME_BUCKETS_MS.map(() => 0).concat(0),
    };
    times.statements++;
    const bucket = TIME_BUCKETS_MS.findIndex((bound) => ms <= bound);
    times.histogram[bucket === -1 ? TIME_BUCKETS_MS.length : bucket]!++;
    times.rows += rows;
    if (times.statements === 1 || ms > times.slowestMs) {
      times.slowestMs = Math.round(ms * 10) / 10;
      times.slowestRows = rows;
    }
    this.summary[kind] = times;
  }
}
