/**
 * The pacing of a prune: statements of a fixed number of rows with a rest between them (prune.ts
 * says why), and the walk of a table by its primary key (the store's upkeep.page).
 */
/** How one prune paces its statements. */
export interface Pace {
  /** Rows per statement. */
  readonly rows: number;
  readonly rest: () => Promise<void>;
}

/**
 * Runs `statement` with `pace.rows` until it handles fewer rows than asked; answers the total of
 * what each answered (rows deleted). `statement` answers how many rows it handled and how many it
 * deleted: a walk reads a page of keys and deletes only the dead among them.
 */
export async function inBatches(
  pace: Pace,
  statement: (rows: number) => Promise<{ handled: number; deleted: number }>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const { handled, deleted } = await statement(pace.rows);
    total += deleted;
    if (handled < pace.rows) return total;
    await pace.rest();
  }
}

/**
 * Walks a table by its text primary key, a batch of keys a step, and deletes the dead among each
 * page (`remove` re-checks every condition). For conditions no index serves: each statement
 * reads one page of the key index, however many live rows the table holds.
 */
export function walkDeleting(
  pace: Pace,
  page: (after: string | undefined, rows: number) => Promise<string[]>,
  remove: (keys: string[]) => Promise<number>,
): Promise<number> {
  let after: string | undefined;
  return inBatches(pace, async (rows) => {
    const keys = await page(after, rows);
    after = keys[keys.length - 1];
    return { handled: keys.length, deleted: keys.length > 0 ? await remove(keys) : 0 };
  });
}
