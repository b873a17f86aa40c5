/**
 * How many rows the next statement of a prune handles. The server's job bounds each statement by
 * time, not rows: on SQLite the driver is synchronous, so a statement is a pause of the event loop
 * as long as it runs, and what a row costs varies a hundredfold with the database — a deleted token
 * touches a random page of its `token_hash` index, cheap while the index fits SQLite's page cache,
 * a disk read each when it does not (docs/performance.md "Cost as the database grows": 2000-row
 * statements held the loop up to 368 ms over a million expired rows).
 */

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
 * What a statement of the server's prune should take. Issue 22's target is no event-loop pause
 * over 50 ms; a statement's time still varies between two batches of the same size (the pages one
 * batch touches may be cached, the next one's not), so the target leaves five times that room.
 * Smaller targets cost more statements (each with its fixed cost and a rest after it) for nothing
 * a request would notice.
 */
export const STATEMENT_TARGET_MS = 10;

/**
 * The fewest rows a statement handles, however slow: a statement's fixed cost (parse, plan, one
 * write-lock round) must stay small beside its rows, and the prune must end.
 */
export const MIN_BATCH_ROWS = 50;

export interface TimeBoundOptions {
  /** The most rows a statement handles. */
  readonly max: number;
  readonly min?: number;
  readonly targetMs?: number;
}

/**
 * Batch sizes bounded by time: the first statement handles `min` rows (nothing is known yet of
 * what a row costs in this table); a statement that took over the target makes the next one
 * smaller, in proportion to the overshoot and at least by half (down to `min`); one that took
 * under half the target doubles the next (up to `max`), which then stays within the target while
 * the cost per row holds. Between the two, the size stays: no oscillation on a steady cost.
 */
export class TimeBoundBatches implements BatchSize {
  private size: number;
  private readonly min: number;
  private readonly max: number;
  private readonly targetMs: number;

  constructor(options: TimeBoundOptions) {
    this.max = options.max;
    this.min = Math.min(options.min ?? MIN_BATCH_ROWS, options.max);
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
    } else if (ms < this.targetMs / 2) {
      this.size = Math.min(this.max, this.size * 2);
    }
  }
}
