// What the event loop's thread did during its longest stall, for the probe (probe.mjs). A delay
// of the loop is one of three things, and only the first is the server's code holding it: the
// thread ran (JavaScript, a synchronous statement), it waited for its core while something else
// ran there (another process pinned to the same core, or one of the server's own threads), or it
// slept in a system call (a page read from the disk, an fsync, a lock). Linux counts the first two
// per thread in /proc/<pid>/task/<tid>/schedstat (nanoseconds on the CPU, nanoseconds runnable
// but waiting — Documentation/scheduler/sched-stats.rst); process.cpuUsage() counts every thread
// of the process, so the two together say whether the core went to the server's other threads or
// to another process. The rest of a gap is sleep.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Ticks every 5 ms: a stall shows as a gap between two ticks well over that. */
export const TICK_MS = 5;

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** The loop thread's [ms on the CPU, ms waiting for it], or undefined off Linux. */
function threadTimes() {
  try {
    const [run, wait] = readFileSync(SCHEDSTAT, 'utf8').split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  } catch {
    return undefined;
  }
}

const processCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const sample = () => ({ at: performance.now(), thread: threadTimes(), cpu: processCpuMs() });

/**
 * Starts the ticks. `longest()` answers the longest gap since the last `reset()` — gapMs, and where
 * Linux tells it ranMs, waitedMs (of which otherThreadsMs went to the server's other threads, as
 * far as they ran meanwhile) and asleepMs — or undefined before the first tick.
 */
export function watchStalls() {
  let last = sample();
  let longest;
  const timer = setInterval(() => {
    const now = sample();
    const gapMs = now.at - last.at;
    if (!longest || gapMs > longest.gapMs) {
      longest = { gapMs };
      if (now.thread && last.thread) {
        const ranMs = now.thread[0] - last.thread[0];
        const waitedMs = now.thread[1] - last.thread[1];
        const otherThreadsMs = Math.max(0, now.cpu - last.cpu - ranMs);
        longest = {
          gapMs,
          ranMs,
          waitedMs,
          otherThreadsMs: Math.min(otherThreadsMs, waitedMs),
          asleepMs: Math.max(0, gapMs - ranMs - waitedMs),
        };
      }
    }
    last = now;
  }, TICK_MS);
  timer.unref();
  return {
    longest: () => longest,
    reset: () => {
      longest = undefined;
    },
  };
}
