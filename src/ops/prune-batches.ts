/**
 * The pacing of a prune: statements of a size a BatchSize chooses, timed, with a rest between
 * them (prune.ts says why), and the walk of a table by its primary key.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { BatchSize } from './batch-size.js';
import type { PruneKind } from './statement-times.js';

/** How one prune paces its statements. */
export interface Pace {
  readonly batches: () => BatchSize;
  readonly rest: (busyMs: number) => Promise<void>;
  readonly clock: () => number;
  /** Told each statement's kind, rows handled and time (ms). */
  readonly timed: (kind: PruneKind, rows: number, ms: number) => void;
}

/**
 * Runs `statement` with the row count `sizes` chooses until it handles fewer rows than asked;
 * answers the total of what each answered (rows deleted). `statement` answers how many rows it
 * handled and how many it deleted: a walk reads a page of keys and deletes only the dead among
 * them.
 */
export async function inBatches(
  pace: Pace,
  kind: PruneKind,
  statement: (rows: number) => Promise<{ handled: number; deleted: number }>,
): Promise<number> {
  const sizes = pace.batches();
  let total = 0;
  for (;;) {
    const rows = sizes.rows;
    const started = pace.clock();
    const { handled, deleted } = await statement(rows);
    const busy = pace.clock() - started;
    total += deleted;
    pace.timed(kind, handled, busy);
    sizes.took(busy);
    if (handled < rows) return total;
    await pace.rest(busy);
  }
}

/**
 * Walks a table by its text primary key, a batch of keys a step, and deletes the dead among each
 * page (`remove` re-checks every condition). For conditions no index serves: each statement
 * reads one page of the key index, however many live rows the table holds.
 */
export function walkDeleting(
  pace: Pace,
  kind: PruneKind,
  page: (after: string | undefined, rows: number) => Promise<string[]>,
  remove: (keys: string[]) => Promise<number>,
): Promise<number> {
  let after: string | undefined;
  return inBatches(pace, kind, async (rows) => {
    const keys = await page(after, rows);
    after = keys[keys.length - 1];
    return { handled: keys.length, deleted: keys.length > 0 ? await remove(keys) : 0 };
  });
}

export function deleted(result: { numDeletedRows: bigint }): number {
  return Number(result.numDeletedRows);
}

/** The tables walked by key, and their text primary keys. */
export type KeyedTable = 'sessions' | 'rate_limits' | 'signin_throttle' | 'grants' | 'clients';

/** The next `rows` primary keys after `after`, in key order. */
export async function pageOf(
  db: Kysely<Database>,
  table: KeyedTable,
  key: string,
  after: string | undefined,
  rows: number,
): Promise<string[]> {
  // biome-ignore lint/suspicious/noExplicitAny: one text primary key, whichever table it belongs to
  const q = (db as Kysely<any>).selectFrom(table).select(key).orderBy(key).limit(rows);
  const found: Array<Record<string, string>> = await (after === undefined
    ? q
    : q.where(key, '>', after)
  ).execute();
  return found.map((row) => row[key] as string);
}
