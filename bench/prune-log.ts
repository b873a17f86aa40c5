/**
 * The end of the server's own prune, read from its log (pino JSON lines, one per line): the
 * "pruned dead rows" line of the run the bench started, with its time to the millisecond.
 */

export interface PruneEnd {
  /** Epoch milliseconds of the log line (pino's `time`). */
  readonly at: number;
  /** Rows deleted, by kind, as the server logged them. */
  readonly pruned: Record<string, number>;
}

/** The messages of src/ops/prune-schedule.ts. */
const DONE = 'pruned dead rows';
const FAILED = 'prune failed; retrying at the next interval';

/**
 * The first prune that ended at or after `since` (epoch ms), or undefined while none has; throws
 * when the prune failed instead. Lines that are not JSON (a stack trace, a partial last line) are
 * skipped.
 */
export function pruneEnd(log: string, since: number): PruneEnd | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes(DONE) && !line.includes(FAILED)) continue;
    let entry: { msg?: unknown; time?: unknown; pruned?: unknown; err?: { message?: unknown } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry.time !== 'number' || entry.time < since) continue;
    if (entry.msg === FAILED) throw new Error(`the server's prune failed: ${String(entry.err?.message)}`);
    if (entry.msg === DONE) return { at: entry.time, pruned: (entry.pruned ?? {}) as Record<string, number> };
  }
  return undefined;
}
