// What the event loop's thread did during its longest stall, for the probe (probe.mjs). A delay
// of the loop is one of three things, and only the first is the server's code holding it: the
// thread ran (JavaScript, a synchronous statement), it waited for its core while something else
// ran there (another process pinned to the same core, or one of the server's own threads), or it
// slept in a system call (a page read from the disk, an fsync, a lock). Linux counts the first two
// per thread in /proc/<pid>/task/<tid>/schedstat (nanoseconds on the CPU, nanoseconds runnable
// but waiting — Documentation/scheduler/sched-stats.rst); process.cpuUsage() counts every thread
// of the process, so the two together say whether the core went to the server's other threads or
// to another process. The rest of a gap is sleep; which system call it slept in, a thread of its
// own reads from /proc/<pid>/task/<tid>/syscall every 2 ms while the loop's ticks are late
// (proc(5): the call's number, or "running"). Which of the server's threads took the core, the same
// thread tells from every thread's schedstat read when the ticks turn late and again when they
// resume (threadRoles: Node names none of them).
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';
import { MessageChannel, Worker } from 'node:worker_threads';

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

/** How often the sampler looks, and how late a tick must be before it reads what the loop's thread is in. */
const SAMPLE_MS = 2;
const STALE_MS = 10;

// The numbers of the system calls a stalled loop is found in (Linux's syscall tables).
const SYSCALLS = {
  x64: {
    0: 'read',
    1: 'write',
    17: 'pread64',
    18: 'pwrite64',
    74: 'fsync',
    75: 'fdatasync',
    202: 'futex',
    35: 'nanosleep',
    230: 'clock_nanosleep',
    232: 'epoll_wait',
    281: 'epoll_pwait',
    9: 'mmap',
    11: 'munmap',
    77: 'ftruncate',
    72: 'fcntl',
    257: 'openat',
    3: 'close',
  },
  arm64: {
    63: 'read',
    64: 'write',
    67: 'pread64',
    68: 'pwrite64',
    82: 'fsync',
    83: 'fdatasync',
    98: 'futex',
    101: 'nanosleep',
    115: 'clock_nanosleep',
    22: 'epoll_pwait',
    222: 'mmap',
    215: 'munmap',
    46: 'ftruncate',
    25: 'fcntl',
    56: 'openat',
    57: 'close',
  },
};

/**
 * V8's platform pool: `--v8-pool-size` from the flags the process started with (node's default 4;
 * 0, as `npm start` gives it, is the cores the process may use less one, at least one —
 * GetActualThreadPoolSize in node's src/node_platform.cc).
 */
function v8PoolSize() {
  // The command line wins over NODE_OPTIONS, so it is read last.
  const flags = [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv];
  const given = flags.findLast((flag) => flag.startsWith('--v8-pool-size='));
  const size = given === undefined ? 4 : Number(given.slice('--v8-pool-size='.length));
  return size >= 1 ? size : Math.max(availableParallelism() - 1, 1);
}

/**
 * Each thread's role by its rank among the process's thread ids (Linux hands ids out in order, so
 * another process starting threads meanwhile shifts the offsets, not the order). Before any
 * JavaScript runs node starts, after the main thread, its delayed-task scheduler and then V8's
 * platform pool; libuv's pool and node's own threads follow; threads started after the probe are
 * worker threads (the SQLite file's warmth reader) and their helpers. Checked by making each busy:
 * a GC's concurrent marking ran on the `pool` threads after the scheduler, a pbkdf2 on later ones.
 */
function threadRoles() {
  const pool = v8PoolSize();
  let others = [];
  try {
    others = readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => tid !== process.pid)
      .sort((a, b) => a - b);
  } catch {}
  const roles = { [process.pid]: 'the loop' };
  others.forEach((tid, rank) => {
    roles[tid] = rank >= 1 && rank <= pool ? "V8's platform pool" : 'libuv pool or node';
  });
  return roles;
}

/** A sample's first word named: a system call, "running", or "-1" (in the kernel outside one, e.g. a page fault). */
const callName = (word) => SYSCALLS[process.arch]?.[word] ?? (/^\d+$/.test(word) ? `syscall ${word}` : word);

// The sampler (evaluated CommonJS): each episode of late ticks is counted by what the loop's
// thread was in, and by how much CPU each thread of the process took from its first late look to
// the tick that ended it, by role; it keeps the longest episode, which is the main thread's longest
// gap.
const SAMPLER = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { readdirSync, readFileSync, readlinkSync } = require('node:fs');
const { port, shared, file, staleMs, sampleMs, roles } = workerData;
const tick = new Float64Array(shared);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const self = readlinkSync('/proc/thread-self').split('/').pop();
const cpuByThread = () => {
  const ms = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try { ms[tid] = Number(readFileSync('/proc/self/task/' + tid + '/schedstat', 'utf8').split(' ')[0]) / 1e6; } catch {}
  }
  return ms;
};
const byRole = (from, to) => {
  const ms = {};
  for (const [tid, now] of Object.entries(to)) {
    const role = tid === self ? 'this sampler' : roles[tid] ?? 'started later (worker threads)';
    ms[role] = (ms[role] ?? 0) + now - (from[tid] ?? 0);
  }
  return ms;
};
let current;
let longest;
for (;;) {
  Atomics.wait(sleeper, 0, 0, sampleMs);
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    port.postMessage(longest && { seen: longest.seen, threadsMs: longest.threadsMs });
    if (m.message.reset) longest = undefined;
  }
  const last = tick[0];
  if (current && last !== current.start) {
    current.gapMs = last - current.start;
    current.threadsMs = byRole(current.cpu, cpuByThread());
    if (!longest || current.gapMs > longest.gapMs) longest = current;
    current = undefined;
  }
  if (performance.timeOrigin + performance.now() - last > staleMs) {
    current ??= { start: last, seen: {}, cpu: cpuByThread() };
    let word = 'unreadable';
    try { word = readFileSync(file, 'utf8').split(' ')[0].trim(); } catch {}
    current.seen[word] = (current.seen[word] ?? 0) + 1;
  }
}`;

/**
 * Starts the sampler; the function it answers gives its longest episode: what the thread was seen
 * in, by call, and the CPU each role of thread took meanwhile.
 */
function startSampler(tick) {
  const { port1, port2 } = new MessageChannel();
  const file = `/proc/self/task/${process.pid}/syscall`;
  const worker = new Worker(SAMPLER, {
    eval: true,
    workerData: {
      port: port2,
      shared: tick.buffer,
      file,
      staleMs: STALE_MS,
      sampleMs: SAMPLE_MS,
      roles: threadRoles(),
    },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  return (reset) =>
    new Promise((resolve) => {
      port1.once('message', (episode) => {
        if (!episode) return resolve(undefined);
        const seen = {};
        for (const [word, n] of Object.entries(episode.seen))
          seen[callName(word)] = (seen[callName(word)] ?? 0) + n;
        resolve({ seen, threadsMs: episode.threadsMs });
      });
      port1.postMessage({ reset });
    });
}

/** GC pauses this long or longer are kept, to be matched against the longest stall. */
const GC_KEPT_MS = 2;
const GC_KEPT = 10_000;
const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * V8's garbage-collection pauses (perf_hooks 'gc' entries: start and duration on the loop's
 * thread), delivered after the pause. `within(start, end)` answers the pause time inside that
 * window, by kind. A parallel collection's helper threads share the loop's core when the server
 * is pinned to one, which shows as waiting for the core.
 */
function watchGc() {
  const pauses = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < GC_KEPT_MS) continue;
      if (pauses.length === GC_KEPT) pauses.shift();
      pauses.push({
        start: entry.startTime,
        end: entry.startTime + entry.duration,
        kind: entry.detail?.kind,
      });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return (start, end) => {
    const byKind = {};
    for (const pause of pauses) {
      const ms = Math.min(end, pause.end) - Math.max(start, pause.start);
      if (ms <= 0) continue;
      const kind = GC_KINDS[pause.kind] ?? `kind ${pause.kind}`;
      byKind[kind] = (byKind[kind] ?? 0) + ms;
    }
    return byKind;
  };
}

const sample = () => ({ at: performance.now(), thread: threadTimes(), cpu: processCpuMs() });

/** Where Linux tells it, what the loop's thread did between two samples `gapMs` apart. */
function split(last, now, gapMs) {
  if (!now.thread || !last.thread) return {};
  const ranMs = now.thread[0] - last.thread[0];
  const waitedMs = now.thread[1] - last.thread[1];
  return {
    ranMs,
    waitedMs,
    otherThreadsMs: Math.min(Math.max(0, now.cpu - last.cpu - ranMs), waitedMs),
    asleepMs: Math.max(0, gapMs - ranMs - waitedMs),
  };
}

/**
 * Starts the ticks. `longest(reset)` answers the longest gap since the last reset — gapMs, and where
 * Linux tells it ranMs, waitedMs (of which otherThreadsMs went to the server's other threads, as
 * far as they ran meanwhile), asleepMs, gcMs (V8's pauses inside the gap, by kind), `seen`:
 * what the thread was in at each of the sampler's looks, by system call, and `threadsMs`: the CPU
 * each role of thread took from the sampler's first look to the gap's end — or undefined before the
 * first tick.
 */
export function watchStalls() {
  const tick = new Float64Array(new SharedArrayBuffer(8));
  const mark = () => {
    tick[0] = performance.timeOrigin + performance.now();
  };
  mark();
  const gcWithin = watchGc();
  const sampled = process.platform === 'linux' ? startSampler(tick) : async () => undefined;
  let last = sample();
  let longest;
  const timer = setInterval(() => {
    mark();
    const now = sample();
    const gapMs = now.at - last.at;
    if (!longest || gapMs > longest.gapMs)
      longest = { gapMs, from: last.at, to: now.at, ...split(last, now, gapMs) };
    last = now;
  }, TICK_MS);
  timer.unref();
  return {
    longest: async (reset) => {
      const found = longest;
      const episode = await sampled(reset);
      if (reset) longest = undefined;
      if (!found) return undefined;
      const { from, to, ...answer } = found;
      return { ...answer, gcMs: gcWithin(from, to), ...episode };
    },
  };
}
