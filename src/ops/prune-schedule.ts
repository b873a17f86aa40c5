/**
 * The server's periodic prune: every PRUNE_INTERVAL seconds each instance tries, and the one
 * holding the database lock does the work (the others skip that round). Its statements are
 * bounded (PRUNE_BATCH rows) with a turn of the event loop between them (prune.ts), so requests
 * run between them.
 */
import type { AppContext } from '../context.js';
import { type Log, type PeriodicJob, startPeriodic } from './periodic.js';
import { prune } from './prune.js';
import { pruneDeviceAuthorizations } from './prune-device.js';
import { pruneDpop } from './prune-dpop.js';

export type PruneLog = Log;

/**
 * How often the server's prune walks the whole grants table (seconds), besides its first prune
 * after start and the one after a failed prune. Between walks each prune checks only the grants
 * it took a code or token from (prune.ts); the walk finds what that check cannot see, which takes
 * a prune cut short (a crash or failure between its token deletes and its grant check: the
 * restart or the failure brings a walk) or rows deleted outside a prune — rare, so once a day.
 */
export const GRANT_WALK_INTERVAL = 86400;

/** Whether the prune at `now` walks every grant, the last walk having been at `lastWalk`. */
export function walksAllGrants(lastWalk: number | undefined, now: number): boolean {
  return lastWalk === undefined || now - lastWalk >= GRANT_WALK_INTERVAL;
}

export function startPruneSchedule(ctx: AppContext, log: PruneLog): PeriodicJob {
  // Undefined until a walk succeeds: the first prune after start walks, and so does the one
  // after a failure.
  let lastWalk: number | undefined;
  return startPeriodic(
    ctx.config.pruneInterval,
    async () => {
      const now = ctx.now();
      const walkAllGrants = walksAllGrants(lastWalk, now);
      const outcome = await ctx.store.instances
        .tryAlone('prune', async () => ({
          ...(await prune(ctx.storage.maintenanceStore.upkeep, ctx.config, now, { walkAllGrants })),
          ...(await pruneDpop(ctx.storage.maintenanceStore, now)),
          deviceAuthorizations: await pruneDeviceAuthorizations(ctx.storage.maintenanceStore, now),
        }))
        .catch((error: unknown) => {
          // The failed prune may have deleted tokens whose grants it never checked.
          lastWalk = undefined;
          throw error;
        });
      if (outcome.ran && walkAllGrants) lastWalk = now;
      if (outcome.ran && Object.values(outcome.result).some((n) => n > 0)) {
        log.info({ pruned: outcome.result, walkedAllGrants: walkAllGrants }, 'pruned dead rows');
      }
    },
    (error) => log.warn({ err: error }, 'prune failed; retrying at the next interval'),
  );
}
