/**
 * The server's periodic prune: every PRUNE_INTERVAL seconds each instance tries, and the one
 * holding the database lock does the work (the others skip that round).
 */
import type { AppContext } from '../context.js';
import { withInstanceLock } from './instance-lock.js';
import { prune } from './prune.js';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PruneSchedule {
  /** Stops the timer and waits for a prune in progress, so the database can close under it. */
  stop(): Promise<void>;
}

export function startPruneSchedule(ctx: AppContext, log: Log): PruneSchedule {
  const seconds = ctx.config.pruneInterval;
  if (seconds === 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      const outcome = await withInstanceLock(ctx.db, 'prune', () => prune(ctx.db, ctx.config, ctx.now()));
      if (outcome.ran && Object.values(outcome.result).some((n) => n > 0)) {
        log.info({ pruned: outcome.result }, 'pruned dead rows');
      }
    } catch (error) {
      log.warn({ err: error }, 'prune failed; retrying at the next interval');
    }
  };
  const timer = setInterval(() => {
    running ??= run().finally(() => {
      running = undefined;
    });
  }, seconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
