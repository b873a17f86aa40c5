/**
 * The end of the server's own prune, read from its log (pino JSON lines, one per line): the
 * "pruned dead rows" line of the run the bench started, with its time to the millisecond.
 */
import type { KindTimes, RestSummary, WarmthSummary } from './server-log.js';

export interface PruneEnd {
  /** Epoch milliseconds of the log line (pino's `time`). */
  readonly at: number;
  /** Rows deleted, by kind, as the server logged them. */
  readonly pruned: Record<string, number>;
  /**
   * Per kind of row, what its statements took ('prune statement times', logged at debug level
   * just before the end: the bench runs the grown server at LOG_LEVEL=debug).
   */
  readonly statements?: Record<string, StatementTimes>;
  /** The passes that kept the file warm (logged with the statement times; SQLite). */
  readonly warmth?: WarmthSummary;
  /** Its rests between statements (src/ops/prune-rest.ts), logged with the statement times. */
  readonly rests?: RestSummary;
}

/**
 * One kind's line of src/ops/statement-times.ts, as read back from the log; a server from before
 * the histogram logs none.
 */
export type StatementTimes = Readonly<Omit<KindTimes, 'histogram'>> & {
  readonly histogram?: readonly number[];
};

/** The messages of src/ops/prune-schedule.ts. */
const DONE = 'pruned dead rows';
const FAILED = 'prune failed; retrying at the next interval';
const TIMES = 'prune statement times';

/**
 * The first prune that ended at or after `since` (epoch ms), or undefined while none has; throws
 * when the prune failed instead. Lines that are not JSON (a stack trace, a partial last line) are
 * skipped.
 */
export function pruneEnd(log: string, since: number): PruneEnd | undefined {
  let statements: Record<string, StatementTimes> | undefined;
  let warmth: WarmthSummary | undefined;
  let rests: RestSummary | undefined;
  for (const line of log.split('\n')) {
    if (!line.includes(DONE) && !line.includes(FAILED) && !line.includes(TIMES)) continue;
    let entry: {
      msg?: unknown;
      time?: unknown;
      pruned?: unknown;
      statements?: unknown;
      warmth?: unknown;
      rests?: unknown;
      err?: { message?: unknown };
    };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry.time !== 'number' || entry.time < since) continue;
    if (entry.msg === FAILED) throw new Error(`the server's prune failed: ${String(entry.err?.message)}`);
    if (entry.msg === TIMES) {
      statements = entry.statements as Record<string, StatementTimes>;
      warmth = entry.warmth as WarmthSummary | undefined;
      rests = entry.rests as RestSummary | undefined;
    }
    if (entry.msg === DONE) {
      const pruned = (entry.pruned ?? {}) as Record<string, number>;
      return {
        at: entry.time,
        pruned,
        ...(statements ? { statements } : {}),
        ...(warmth ? { warmth } : {}),
        ...(rests ? { rests } : {}),
      };
    }
  }
  return undefined;
}
