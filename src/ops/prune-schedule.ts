/**
 * The server's periodic prune: every PRUNE_INTERVAL seconds each instance tries, and the one
 * holding the database lock does the work (the others skip that round). It rests between its
 * statements as long as each took (restAsLongAsBusy): requests keep at least half the loop.
 */
import type { AppContext } from '../context.js';
import { withInstanceLock } from './instance-lock.js';
import { type Log, type PeriodicJob, startPeriodic } from './periodic.js';
import { prune, restAsLongAsBusy } from './prune.js';

export function startPruneSchedule(ctx: AppContext, log: Log): PeriodicJob {
  return startPeriodic(
    ctx.config.pruneInterval,
    async () => {
      const outcome = await withInstanceLock(ctx.db, 'prune', () =>
        prune(ctx.storage.maintenanceDb, ctx.config, ctx.now(), { rest: restAsLongAsBusy }),
      );
      if (outcome.ran && Object.values(outcome.result).some((n) => n > 0)) {
        log.info({ pruned: outcome.result }, 'pruned dead rows');
      }
    },
    (error) => log.warn({ err: error }, 'prune failed; retrying at the next interval'),
  );
}
