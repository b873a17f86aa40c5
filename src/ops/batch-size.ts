/**
 * How many rows the next statement of a prune handles. The server's job bounds each statement by
 * time, not rows: on SQLite a statement holds the write lock as long as it runs (and, on the
 * server's connection, whose driver is synchronous, the event loop), and what a row costs varies
 * a hundredfold with the database — a deleted token touches a random page of its `token_hash`
 * index, cheap while the index fits SQLite's page cache, a disk read each when it does not
 * (docs/performance.md "Cost as the database grows": 2000-row statements held the loop up to
 * 368 ms over a million expired rows).
 */
import type { DialectName } from '../storage/connect.js';

/** Tells the next statement's row count and learns from how long each statement took. */
export interface BatchSize {
  /** Rows for the next statement. */
  readonly rows: number;
  /** The statement just run took `ms` milliseconds. */
  took(ms: number): void;
}

/** Always `rows` a statement: `schoolauth prune`, which no request waits for. */
export function fixedBatches(rows: number): BatchSize {
  return { rows, took: () => undefined };
}

/**
 * What a statement of the server's prune should take on SQLite. On the server's connection (the
 * default, PRUNE_THREAD=server) a request that arrives while a statement runs waits for it (the
 * driver is synchronous), and under a closed-loop load every request in flight does, so a
 * statement's length is what the prune adds to the p99: issue 22's bound of 2× leaves as much as
 * the p99 before the prune, 1.4–1.9 ms for introspection on a fast machine (docs/performance.md
 * "Cost as the database grows": at 10 ms the worst second's p99 was 19×; at 3 ms the p99 of the
 * whole prune was 2.08× and 2.55× that of before, at 1 ms 1.99× and 2.16×, the prune no longer).
 * On the worker's connection (PRUNE_THREAD=worker) only a request's write waits for it, for the
 * write lock. A statement's time still varies between two batches of the same size (the pages
 * one batch touches may be cached, the next one's not). Smaller targets cost more statements,
 * each with its fixed cost, but the rest after each is in proportion to its length
 * (prune-rest.ts), so the prune's length barely moves.
 */
export const STATEMENT_TARGET_MS = 1;

/**
 * What a statement of the server's prune should take on PostgreSQL. There the driver is
 * asynchronous: the statement runs in the database's backend while the event loop serves
 * requests, so its time is not a wait added to a request as on SQLite, and the time the prune
 * measures includes the event loop's own queue under load (several milliseconds at 16
 * connections). With the SQLite target every statement stayed at MIN_BATCH_ROWS and a prune of a
 * million expired rows under load had not ended after 26 minutes (docs/performance.md "Cost as the
 * database grows"). The rest after each statement (prune-rest.ts) still bounds the prune to a
 * sixth of one backend's time under load, half when the server is idle.
 */
export const POSTGRES_STATEMENT_TARGET_MS = 50;

/** The statement target of the server's prune on this dialect. */
export function statementTargetMs(dialect: DialectName): number {
  return dialect === 'postgres' ? POSTGRES_STATEMENT_TARGET_MS : STATEMENT_TARGET_MS;
}

/**
 * The fewest rows a statement handles, however slow. Low enough that a statement whose rows all
 * miss the page cache (a disk read each, up to a millisecond on a loaded machine) can shrink
 * under a few milliseconds; not lower, since a statement's fixed cost (parse, plan, one
 * write-lock round) must stay small beside its rows. Every statement handles at least one row
 * or ends its walk, so the prune ends.
 */
export const MIN_BATCH_ROWS = 10;

/** How much a batch grows after fast statements: by half, not double (see TimeBoundBatches). */
const GROWTH = 1.5;

/** Statements under half the target in a row before a batch grows. */
const FAST_BEFORE_GROWTH = 2;

export interface TimeBoundOptions {
  /** The most rows a statement handles. */
  readonly max: number;
  readonly min?: number;
  readonly targetMs?: number;
}

/**
 * Batch sizes bounded by time: the first statement handles `min` rows (nothing is known yet of
 * what a row costs in this table); a statement that took over the target makes the next one
 * smaller, in proportion to the overshoot and at least by half (down to `min`). Growth is slower
 * than shrinking, as in TCP's congestion control (RFC 5681 §3.1): a batch grows by half (up to
 * `max`) only after two statements in a row took under half the target. What a row costs is not
 * steady: the pages of one range of an index may be cached and the next range's not, so one
 * fast statement is weak evidence, and a batch doubled from one statement just under half the
 * target would take the whole target at the same cost, with no margin for a colder range; grown
 * by half it takes at most three quarters. Between half the target and the target, the size
 * stays: no oscillation on a steady cost.
 */
export class TimeBoundBatches implements BatchSize {
  private size: number;
  private fast = 0;
  private readonly min: number;
  private readonly max: number;
  private readonly targetMs: number;

  constructor(options: TimeBoundOptions) {
    this.max = options.max;
    this.min = Math.max(1, Math.min(options.min ?? MIN_BATCH_ROWS, options.max));
    this.targetMs = options.targetMs ?? STATEMENT_TARGET_MS;
    this.size = this.min;
  }

  get rows(): number {
    return this.size;
  }

  took(ms: number): void {
    if (ms > this.targetMs) {
      const proportional = Math.floor((this.size * this.targetMs) / ms);
      this.size = Math.max(this.min, Math.min(Math.floor(this.size / 2), proportional));
      this.fast = 0;
    } else if (ms < this.targetMs / 2) {
      this.fast++;
      if (this.fast >= FAST_BEFORE_GROWTH) {
        this.size = Math.min(this.max, Math.max(this.size + 1, Math.floor(this.size * GROWTH)));
        this.fast = 0;
      }
    } else {
      this.fast = 0;
    }
  }
}
