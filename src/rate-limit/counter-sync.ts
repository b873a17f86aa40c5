/**
 * Several instances on one PostgreSQL share their rate-limit counts through the `rate_limits`
 * table: every RATE_LIMIT_FLUSH_MS each instance adds the hits it counted since the last flush to
 * the shared rows, in one statement per batch, and takes the other instances' hits from that
 * statement's answer. The flush runs on a timer of its own, never on a request or inside a
 * request's transaction; a failed flush (database down) is logged and its hits go with the next.
 *
 * docs/configuration.md "Rate limits" states the bound this lag puts on several instances together.
 */
import type { RateLimitWindows } from '../storage/contract/rate-limit-windows.js';
import type { WindowCounters } from './window-counters.js';

/** Where flush failures and recoveries are reported (the app's logger). */
export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface CounterSync {
  /** Sends the counts now (the timer does it every interval); resolves when they are settled. */
  flush(): Promise<void>;
  /** Stops the timer, then sends what is left, so the other instances count this one's last hits. */
  stop(): Promise<void>;
}

export interface CounterSyncOptions {
  readonly intervalMs: number;
  readonly now: () => number;
  readonly log: SyncLog;
}

export function startCounterSync(
  counters: WindowCounters,
  windows: RateLimitWindows,
  options: CounterSyncOptions,
): CounterSync {
  let running: Promise<void> | undefined;
  let failing = false;
  const send = async () => {
    const increments = counters.takeUnsent(options.now());
    if (increments.length === 0) return;
    try {
      counters.settle(increments, await windows.add(increments));
      if (failing) options.log.info({}, 'rate-limit counts reach the database again');
      failing = false;
    } catch (error) {
      counters.restore(increments);
      // Once per outage, not once per interval.
      if (!failing)
        options.log.warn({ err: error }, 'rate-limit counts not written; retrying every interval');
      failing = true;
    }
  };
  const flush = async () => {
    // One flush at a time: a second caller waits for the one under way, then sends its own hits.
    while (running) await running;
    running = send().finally(() => {
      running = undefined;
    });
    await running;
  };
  const timer = setInterval(() => {
    if (!running) void flush();
  }, options.intervalMs);
  timer.unref();
  return {
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
