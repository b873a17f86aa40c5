/**
 * How long the server's prune rests after each statement. A request that arrives while a
 * statement runs on SQLite's synchronous driver waits for it, and the prune's statements and
 * rests alternate on the one event loop, so the rest sets the prune's share of the loop — and
 * under a closed-loop load of requests in flight, a request's latency grows as that share does:
 * at half the loop (a rest as long as each statement) the median second's p99 of a full-size
 * prune under introspection was 8.5–9 ms against 3–4 before it (docs/performance.md "Who drops
 * the pages"), over issue 22's bound of 2×. So while requests are being served the prune takes a
 * sixth of the loop (a rest five times as long as the statement; at a fifth of the full size a
 * rest of 1×, 3× and 5× gave a worst-second p99 of 2.8–4×, 1.8–2.5× and 1.33–2×, the prune 25–28,
 * 33–36 and 42–58 s), and on an idle loop half, as before: no one waits, and the prune ends
 * sooner.
 *
 * "Requests are being served" is read off the event loop itself: its utilization during the
 * last rest (`performance.eventLoopUtilization`), when only other work could run. The first rest
 * assumes load.
 */
import { performance } from 'node:perf_hooks';

/** Rest per millisecond of statement while the loop serves requests: the prune takes a sixth. */
export const REST_PER_BUSY_UNDER_LOAD = 5;

/** Rest per millisecond of statement on an idle loop: the prune takes half. */
export const REST_PER_BUSY_IDLE = 1;

/** The loop's utilization during a rest above which it counts as serving requests. */
export const LOADED_UTILIZATION = 0.2;

/** The shortest rest whose utilization is read (a shorter one could not have served a request). */
const MIN_MEASURED_REST_MS = 1;

/** Pauses `ms` milliseconds (a timer, so requests and I/O run meanwhile). */
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface RestSummary {
  readonly underLoad: number;
  readonly idle: number;
  readonly ms: number;
}

export interface LoadAwareRestOptions {
  /** The loop's utilization over a rest (default: `performance.eventLoopUtilization`). */
  readonly utilization?: () => () => number;
  readonly pause?: (ms: number) => Promise<void>;
}

/** Utilization of the event loop from now until the returned function is called. */
const loopUtilization = (): (() => number) => {
  const start = performance.eventLoopUtilization();
  return () => performance.eventLoopUtilization(start).utilization;
};

/** A rest per statement that yields more of the loop while requests use it (see above). */
export class LoadAwareRest {
  private loaded = true;
  private readonly counts = { underLoad: 0, idle: 0, ms: 0 };
  private readonly measure: () => () => number;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(options: LoadAwareRestOptions = {}) {
    this.measure = options.utilization ?? loopUtilization;
    this.wait = options.pause ?? pause;
  }

  /** The rest the next statement of `busyMs` gets, as things stand. */
  restFor(busyMs: number): number {
    return busyMs * (this.loaded ? REST_PER_BUSY_UNDER_LOAD : REST_PER_BUSY_IDLE);
  }

  /** The rests so far: how many under load and idle, and the milliseconds asked for in all. */
  get summary(): RestSummary {
    return { ...this.counts };
  }

  async rest(busyMs: number): Promise<void> {
    const ms = this.restFor(busyMs);
    this.counts[this.loaded ? 'underLoad' : 'idle']++;
    this.counts.ms += ms;
    const during = this.measure();
    await this.wait(ms);
    // A rest too short to have let a request in says nothing of the load: the last reading stands.
    if (ms >= MIN_MEASURED_REST_MS) this.loaded = during() > LOADED_UTILIZATION;
  }
}
