// Preloaded into a server under soak or profiling: answers on the IPC channel with
// process.memoryUsage(), and starts and stops a CPU profile (node:inspector) so a profile covers
// only the load, not start-up and fixtures. It also watches the event loop
// (perf_hooks.monitorEventLoopDelay): `loop` answers the longest delay since the last reset, so
// a bench can say how long the server stopped answering (a prune's batches, a GC), and, for the
// longest stall, whether the loop's thread ran, waited for its core or slept (loop-stalls.mjs). With
// BENCH_HELD_INTERVAL_MS set, an interval timer of exactly that period (a periodic job's, e.g.
// PRUNE_INTERVAL's) is held instead of scheduled, and `interval:fire` runs it once: the bench
// starts the server's own job at a moment it chooses, never on a guessed clock. Does nothing
// without an IPC channel.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { watchStalls } from './loop-stalls.mjs';

// 10 ms sampling: a block of 50 ms shows as a delay of about 40 ms or more.
const loop = monitorEventLoopDelay({ resolution: 10 });
let stalls;

let session;

function post(method, params = {}) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/** Callbacks of the held interval timers (see above). */
const held = [];

function holdInterval(periodMs) {
  const schedule = globalThis.setInterval;
  globalThis.setInterval = (callback, ms, ...args) => {
    if (ms !== periodMs) return schedule(callback, ms, ...args);
    held.push(() => callback(...args));
    // What the caller may do with a timer: a never-firing one does it all.
    const idle = schedule(() => undefined, 2 ** 31 - 1);
    idle.unref();
    return idle;
  };
}

async function answer(message) {
  if (message.kind === 'interval:fire') {
    const at = Date.now();
    for (const run of held) run();
    return { kind: 'interval:fired', value: { at, timers: held.length } };
  }
  if (message.kind === 'memory') return { kind: 'memory', value: process.memoryUsage() };
  if (message.kind === 'loop') {
    const ms = (ns) => ns / 1e6;
    const value = {
      maxMs: ms(loop.max),
      p99Ms: ms(loop.percentile(99)),
      meanMs: ms(loop.mean),
      longestStall: await stalls.longest(Boolean(message.reset)),
    };
    if (message.reset) loop.reset();
    return { kind: 'loop', value };
  }
  if (message.kind === 'profile:start') {
    session = new Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
    return { kind: 'profile:started' };
  }
  if (message.kind === 'profile:stop') {
    const { profile } = await post('Profiler.stop');
    writeFileSync(message.path, JSON.stringify(profile));
    session.disconnect();
    return { kind: 'profile:written', path: message.path };
  }
  return { kind: 'unknown' };
}

if (process.send) {
  const period = Number(process.env.BENCH_HELD_INTERVAL_MS);
  if (period > 0) holdInterval(period);
  loop.enable();
  stalls = watchStalls();
  process.on('message', (message) => {
    answer(message).then(
      (reply) => process.send(reply),
      (error) => process.send({ kind: 'error', message: String(error) }),
    );
  });
  // The channel must not keep a stopped server alive.
  process.channel?.unref();
}
