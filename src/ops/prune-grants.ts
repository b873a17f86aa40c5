/**
 * Grants left with no code or token. A grant is written with its authorization code
 * (grants.repository.ts), and codes and tokens are deleted only by the prune (revocation marks
 * rows, it deletes none; deleting an account or a client deletes its grants with them, by
 * cascade). So a grant is left with nothing only when a prune deleted its last code or token:
 * the prune collects the `grant_id`s of what it deletes (`DELETE … RETURNING`) and checks those
 * grants alone (`checkGrants`), with the condition of the walk over the whole table
 * (`walkGrants`, the same statement). The walk is the safety net for what the targeted check
 * cannot see: a prune cut short between its deletes and its grant check (a crash, a failed
 * statement, a stopped server), rows deleted by hand or by an older version.
 */
import type { Upkeep } from '../storage/contract/upkeep.js';
import { inBatches, type Pace, walkDeleting } from './prune-batches.js';

/**
 * The most grant ids one prune remembers for the targeted check (a few MB of strings); past it,
 * that prune walks the whole grants table instead, which needs no memory.
 */
export const MAX_TRACKED_GRANTS = 200_000;

/** The grants that lost a code or token to this prune, up to `max` (MAX_TRACKED_GRANTS). */
export class LosingGrants {
  readonly ids = new Set<string>();
  overflowed = false;

  constructor(private readonly max: number = MAX_TRACKED_GRANTS) {}

  add(grantIds: readonly string[]): void {
    if (this.overflowed) return;
    for (const id of grantIds) this.ids.add(id);
    if (this.ids.size > this.max) {
      this.overflowed = true;
      this.ids.clear();
    }
  }
}

/** Every grant, walked by key: the safety net (see the top of this file). */
export function walkGrants(rows: Upkeep, createdBefore: number, pace: Pace): Promise<number> {
  return walkDeleting(
    pace,
    (after, count) => rows.page('grants', after, count),
    (keys) => rows.deleteDeadGrants(keys, createdBefore),
  );
}

/** The grants that lost a code or token to this prune (`ids`), checked a batch at a time. */
export function checkGrants(
  store: Upkeep,
  ids: string[],
  createdBefore: number,
  pace: Pace,
): Promise<number> {
  let from = 0;
  return inBatches(pace, async (rows) => {
    const keys = ids.slice(from, from + rows);
    from += keys.length;
    return {
      handled: keys.length,
      deleted: keys.length > 0 ? await store.deleteDeadGrants(keys, createdBefore) : 0,
    };
  });
}
