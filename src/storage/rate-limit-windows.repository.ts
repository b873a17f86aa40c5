import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Hits of one key in one window, counted by one instance, to be added to the shared row. */
export interface WindowIncrement {
  readonly key: string;
  readonly count: number;
  /** When the window closes (epoch seconds): the shared row's `reset_at`. */
  readonly resetAt: number;
}

/** A shared row as the database answered it after an increment: every instance's hits. */
export interface SharedWindow {
  readonly key: string;
  readonly count: number;
  readonly reset_at: number;
}

/** Rows per statement: three parameters each, well under PostgreSQL's 65,535. */
const BATCH = 5000;

/**
 * Adds the increments to the shared `rate_limits` rows of their windows and answers every row as
 * it is after the addition (all instances' hits): one `INSERT … ON CONFLICT DO UPDATE … RETURNING`
 * per batch of up to 5,000 keys. A row of an earlier window starts over at the increment; a row
 * already in a later window (an instance whose clock is ahead) is left as it is.
 *
 * Keys go in sorted order, so two instances adding overlapping batches lock the rows in the same
 * order and cannot deadlock.
 */
export async function addToWindows(
  db: Kysely<Database>,
  increments: readonly WindowIncrement[],
): Promise<SharedWindow[]> {
  const sorted = [...increments].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const answered: SharedWindow[] = [];
  for (let i = 0; i < sorted.length; i += BATCH) {
    const rows = sorted.slice(i, i + BATCH).map((x) => ({ key: x.key, count: x.count, reset_at: x.resetAt }));
    answered.push(...(await addBatch(db, rows)));
  }
  return answered;
}

function addBatch(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ key: string; count: number; reset_at: number }>,
): Promise<SharedWindow[]> {
  return db
    .insertInto('rate_limits')
    .values([...rows])
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        count: eb
          .case()
          .when('rate_limits.reset_at', '=', eb.ref('excluded.reset_at'))
          .then(eb('rate_limits.count', '+', eb.ref('excluded.count')))
          .when('rate_limits.reset_at', '<', eb.ref('excluded.reset_at'))
          .then(eb.ref('excluded.count'))
          .else(eb.ref('rate_limits.count'))
          .end(),
        reset_at: eb
          .case()
          .when('rate_limits.reset_at', '<', eb.ref('excluded.reset_at'))
          .then(eb.ref('excluded.reset_at'))
          .else(eb.ref('rate_limits.reset_at'))
          .end(),
      })),
    )
    .returning(['key', 'count', 'reset_at'])
    .execute();
}
