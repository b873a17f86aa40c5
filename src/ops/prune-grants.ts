/**
 * Grants left with no code or token. A grant is written with its authorization code
 * (grants.repository.ts), and codes and tokens are deleted only by the prune (revocation marks
 * rows, it deletes none; deleting an account or a client deletes its grants with them, by
 * cascade). So a grant is left with nothing only when a prune deleted its last code or token:
 * the prune collects the `grant_id`s of what it deletes (`DELETE … RETURNING`) and checks those
 * grants alone (`checkGrants`), with the conditions of the walk over the whole table
 * (`walkGrants`, the same statement). The walk is the safety net for what the targeted check
 * cannot see: a prune cut short between its deletes and its grant check (a crash, a failed
 * statement, a stopped server), rows deleted by hand or by an older version.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { deleted, inBatches, type Pace, pageOf, walkDeleting } from './prune-batches.js';

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
export function walkGrants(db: Kysely<Database>, createdBefore: number, pace: Pace): Promise<number> {
  return walkDeleting(
    pace,
    (after, rows) => pageOf(db, 'grants', 'id', after, rows),
    (keys) => deleteDeadGrants(db, keys, createdBefore),
  );
}

/** The grants that lost a code or token to this prune (`ids`), checked a batch at a time. */
export function checkGrants(
  db: Kysely<Database>,
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
      deleted: keys.length > 0 ? await deleteDeadGrants(db, keys, createdBefore) : 0,
    };
  });
}

/**
 * Deletes those of `keys` that are dead grants: no code and no token left, and created before
 * `createdBefore`. The one condition both the walk and the targeted check use.
 */
async function deleteDeadGrants(
  db: Kysely<Database>,
  keys: string[],
  createdBefore: number,
): Promise<number> {
  return deleted(
    await db
      .deleteFrom('grants')
      .where('id', 'in', keys)
      .where('created_at', '<=', createdBefore)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('authorization_codes')
              .select('authorization_codes.grant_id')
              .whereRef('authorization_codes.grant_id', '=', 'grants.id')
              .unionAll(
                selectFrom('access_tokens')
                  .select('access_tokens.grant_id')
                  .whereRef('access_tokens.grant_id', '=', 'grants.id'),
              )
              .unionAll(
                selectFrom('refresh_tokens')
                  .select('refresh_tokens.grant_id')
                  .whereRef('refresh_tokens.grant_id', '=', 'grants.id'),
              ),
          ),
        ),
      )
      .executeTakeFirst(),
  );
}
