/**
 * The server's periodic prune: every PRUNE_INTERVAL seconds each instance tries, and the one
 * holding the database lock does the work (the others skip that round). Its statements are
 * bounded by time (TimeBoundBatches) and it rests between them (LoadAwareRest, prune-rest.ts):
 * five times as long as each took while requests are served, so they keep five sixths of the
 * event loop (SQLite), of the write lock and of a database backend; as long on an idle loop. It
 * runs on `Storage.offLoopDb`: the server's connection, or with PRUNE_THREAD=worker a
 * connection of its own on a worker thread (src/storage/sqlite/worker-dialect.ts), whose
 * statements requests' reads never wait for. On
 * SQLite the rest also lasts until the checkpoint worker has caught up with a long WAL
 * (`Storage.checkpointsCaughtUp`), so the prune's writes never need the WAL's quiet restart,
 * which holds every query back while it runs; and the file's pages are kept in the page cache by
 * reads on a low-priority worker thread (`Storage.whileWarm`), so its statements on the event
 * loop find the cold pages they walk in memory instead of waiting for the disk.
 */
import type { AppContext } from '../context.js';
import { statementTargetMs, TimeBoundBatches } from './batch-size.js';
import { type Log, type PeriodicJob, startPeriodic } from './periodic.js';
import { PRUNE_BATCH, prune } from './prune.js';
import { pruneDeviceAuthorizations } from './prune-device.js';
import { pruneDpop } from './prune-dpop.js';
import { LoadAwareRest } from './prune-rest.js';
import { StatementTimes } from './statement-times.js';

/** The passes that kept the file warm during one prune (`Storage.whileWarm`), as logged. */
export interface WarmthSummary {
  readonly passes: number;
  readonly bytes: number;
  readonly ms: number;
}

/** The server's log; the prune's statement times go at debug level. */
export interface PruneLog extends Log {
  debug(obj: object, msg: string): void;
}

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
  const targetMs = statementTargetMs(ctx.storage.dialect);
  return startPeriodic(
    ctx.config.pruneInterval,
    async () => {
      const now = ctx.now();
      const walkAllGrants = walksAllGrants(lastWalk, now);
      const times = new StatementTimes();
      const warmth = { passes: 0, bytes: 0, ms: 0 };
      const rests = new LoadAwareRest();
      const outcome = await ctx.store.instances
        .tryAlone('prune', async () => ({
          ...(await ctx.storage.whileWarm(
            () =>
              prune(ctx.storage.offLoopDb, ctx.config, now, {
                batches: () => new TimeBoundBatches({ max: PRUNE_BATCH, targetMs }),
                rest: async (busyMs) => {
                  await Promise.all([rests.rest(busyMs), ctx.storage.checkpointsCaughtUp()]);
                },
                onStatement: (kind, rows, ms) => times.record(kind, rows, ms),
                walkAllGrants,
              }),
            (pass) => {
              warmth.passes++;
              warmth.bytes += pass.bytes;
              warmth.ms += pass.ms;
            },
          )),
          ...(await pruneDpop(ctx.store, now)),
        }))
        .catch((error: unknown) => {
          // The failed prune may have deleted tokens whose grants it never checked.
          lastWalk = undefined;
          throw error;
        });
      if (outcome.ran && walkAllGrants) lastWalk = now;
      const devices = outcome.ran ? await pruneDeviceAuthorizations(ctx.storage.maintenanceStore, now) : 0;
      if (devices > 0) log.info({ pruned: { deviceAuthorizations: devices } }, 'pruned dead rows');
      if (outcome.ran)
        log.debug({ statements: times.summary, rests: rests.summary, warmth }, 'prune statement times');
      if (outcome.ran && Object.values(outcome.result).some((n) => n > 0)) {
        log.info({ pruned: outcome.result, walkedAllGrants: walkAllGrants }, 'pruned dead rows');
      }
    },
    (error) => log.warn({ err: error }, 'prune failed; retrying at the next interval'),
  );
}
