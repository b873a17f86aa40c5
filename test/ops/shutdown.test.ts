import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServer } from '../helpers/server-process.js';

const BODY = 'grant_type=authorization_code&code=sa_ac_x';

/** A request whose headers and half its body are sent; `finish()` sends the rest. */
async function halfSentRequest(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 10)}`,
  );
  return {
    finish: () => socket.write(BODY.slice(10)),
    response: async () => {
      await closed;
      return received;
    },
  };
}

describe('graceful shutdown', () => {
  it('SIGTERM during a burst: every request is answered, new connections are refused, exit code 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-shutdown-'));
    const server = await startServer({ DATABASE_URL: `sqlite:${dir}/db.sqlite`, PRUNE_INTERVAL: '1' });
    // A burst of complete requests, and twenty more still being sent when the signal arrives.
    const burst = Array.from({ length: 30 }, () => fetch(`${server.url}/readyz`).then((r) => r.status));
    const inFlight = await Promise.all(Array.from({ length: 20 }, () => halfSentRequest(server.port)));
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(server.child.exitCode, null, 'still finishing the in-flight requests');
    await assert.rejects(fetch(`${server.url}/healthz`), 'no new connection is accepted');
    for (const request of inFlight) request.finish();
    const responses = await Promise.all(inFlight.map((r) => r.response()));
    for (const response of responses) {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
      assert.ok(status >= 400 && status < 500, `a complete answer, not a cut connection: ${response}`);
      assert.match(response, /\r\n\r\n\{"error":"[a-z_]+"/);
    }
    assert.deepEqual(await Promise.all(burst), Array(30).fill(200));
    assert.equal(await server.exited, 0, server.output());
  });
});
