/**
 * Erases the sealed successor pairs of refresh rotations whose grace window has ended (docs/decisions.md "Refresh rotation",
 * src/crypto/successor-seal.ts): a repeat after the window revokes the family without opening
 * the pair, and nothing should keep it longer than it can be used. Runs every
 * SUCCESSOR_ERASE_INTERVAL seconds (at most REFRESH_GRACE), so a pair outlives its window by at
 * most that long. The statement is idempotent: every instance may run it.
 */
import type { AppContext } from '../context.js';
import { type Log, type PeriodicJob, startPeriodic } from './periodic.js';

export const SUCCESSOR_ERASE_INTERVAL = 10;

export function startSuccessorErasure(ctx: AppContext, log: Log): PeriodicJob {
  return startPeriodic(
    Math.max(1, Math.min(SUCCESSOR_ERASE_INTERVAL, ctx.config.refreshGrace)),
    async () => {
      await ctx.store.upkeep.eraseEndedSuccessors(ctx.now() - ctx.config.refreshGrace);
    },
    (error) => log.warn({ err: error }, 'erasing ended refresh successors failed; retrying'),
  );
}
