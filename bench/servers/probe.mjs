// Preloaded into a server under soak or profiling: answers on the IPC channel with
// process.memoryUsage(), and starts and stops a CPU profile (node:inspector) so a profile covers
// only the load, not start-up and fixtures. Does nothing otherwise.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

let session;

function post(method, params = {}) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function answer(message) {
  if (message.kind === 'memory') return { kind: 'memory', value: process.memoryUsage() };
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
  process.on('message', (message) => {
    answer(message).then(
      (reply) => process.send(reply),
      (error) => process.send({ kind: 'error', message: String(error) }),
    );
  });
  // The channel must not keep a stopped server alive.
  process.channel?.unref();
}
