// Preloaded into a server under soak or profiling: answers on the IPC channel with
// process.memoryUsage(), and starts and stops a CPU profile (node:inspector) so a profile covers
// only the load, not start-up and fixtures. It also watches the event loop
// (perf_hooks.monitorEventLoopDelay): `loop` answers the longest delay since the last reset, so
// a bench can say how long the server stopped answering (a prune's batches, a GC). Does nothing
// without an IPC channel.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// 10 ms sampling: a block of 50 ms shows as a delay of about 40 ms or more.
const loop = monitorEventLoopDelay({ resolution: 10 });

let session;

function post(method, params = {}) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function answer(message) {
  if (message.kind === 'memory') return { kind: 'memory', value: process.memoryUsage() };
  if (message.kind === 'loop') {
    const ms = (ns) => ns / 1e6;
    const value = { maxMs: ms(loop.max), p99Ms: ms(loop.percentile(99)), meanMs: ms(loop.mean) };
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
  loop.enable();
  process.on('message', (message) => {
    answer(message).then(
      (reply) => process.send(reply),
      (error) => process.send({ kind: 'error', message: String(error) }),
    );
  });
  // The channel must not keep a stopped server alive.
  process.channel?.unref();
}
