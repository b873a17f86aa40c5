import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServer } from '../helpers/server-process.js';

const BODY = 'grant_type=authorization_code&code=sa_ac_x';

/** One kept-alive connection: a first request answered (so the server surely accepted it). */
async function openConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  while (!/\r\n\r\n\{"status":"ok"\}$/.test(received)) await new Promise((r) => setTimeout(r, 10));
  received = '';
  return {
    /** Sends the headers and half the body of a token request. */
    startRequest: () =>
      socket.write(
        `POST /api/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 10)}`,
      ),
    finishRequest: (then = '') => socket.write(BODY.slice(10) + then),
    /** Everything received after the first answer, once the server closed the connection. */
    response: async () => {
      await closed;
      return received;
    },
  };
}

describe('graceful shutdown', () => {
  it('SIGTERM during a burst: every request in flight is answered, new connections are refused, exit code 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-shutdown-'));
    const server = await startServer({ DATABASE_URL: `sqlite:${dir}/db.sqlite`, PRUNE_INTERVAL: '1' });
    const burst = await Promise.all(Array.from({ length: 30 }, () => fetch(`${server.url}/readyz`)));
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(30).fill(200),
    );
    // Twenty requests still being sent when the signal arrives.
    const connections = await Promise.all(Array.from({ length: 20 }, () => openConnection(server.port)));
    for (const c of connections) c.startRequest();
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(server.child.exitCode, null, 'still finishing the in-flight requests');
    await assert.rejects(fetch(`${server.url}/healthz`), 'no new connection is accepted');
    for (const c of connections) c.finishRequest();
    const responses = await Promise.all(connections.map((c) => c.response()));
    for (const response of responses) {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
      assert.ok(status >= 400 && status < 500, `a complete answer, not a cut connection: ${response}`);
      assert.match(response, /\r\n\r\n\{"error":"[a-z_]+"/);
    }
    assert.equal(await server.exited, 0, server.output());
  });

  it('a request that arrives on an open connection during shutdown is served, then the connection closes (not a 503)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-shutdown-'));
    const server = await startServer({ DATABASE_URL: `sqlite:${dir}/db.sqlite` });
    const connection = await openConnection(server.port);
    connection.startRequest();
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // The balancer's next request on its kept-alive connection, pipelined behind the one in flight.
    connection.finishRequest('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const received = await connection.response();
    const answers = [...received.matchAll(/HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/g)];
    assert.equal(answers.length, 2, received);
    assert.match(answers[0]![1]!, /^4\d\d$/, `the token request in flight is answered: ${received}`);
    assert.equal(answers[1]![1], '200', `the request that came during shutdown is served: ${received}`);
    assert.match(answers[1]![0], /\r\nconnection: close\r\n/i);
    assert.match(received, /\{"status":"ok"\}$/);
    assert.equal(await server.exited, 0, server.output());
  });
});
