/**
 * Issue 44 finding 3: a request whose body trickles in, or a connection that stays silent, must not
 * hold a connection (and a file descriptor) for ever. REQUEST_TIMEOUT bounds the whole request
 * (408 in JSON, then the connection closes), IDLE_TIMEOUT a silent connection; an upload that is
 * slow but arrives within REQUEST_TIMEOUT is stored. Over real sockets to 127.0.0.1, with short
 * bounds configured. Transport only, the same on both databases: run on SQLite.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { multipartBody, seedDemo } from '../helpers/api.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';
import { mintAccessToken } from '../helpers/tokens.js';

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  readonly text: string;
  /** Milliseconds from the connection to its close. */
  readonly closedAfter: number;
}

/**
 * Opens a connection, writes `head`, then each of `pieces` `gapMs` apart (stopping once the server
 * has closed), and resolves when the server closes the connection (or after `giveUpMs`).
 */
function trickle(url: string, head: string, pieces: readonly Buffer[], gapMs: number, giveUpMs: number) {
  const { hostname, port } = new URL(url);
  return new Promise<Exchange>((resolve) => {
    const started = Date.now();
    let text = '';
    let closed = false;
    const socket = connect(Number(port), hostname);
    const finish = () => {
      if (closed) return;
      closed = true;
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text, closedAfter: Date.now() - started });
    };
    const giveUp = setTimeout(finish, giveUpMs);
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(head);
      for (const piece of pieces) {
        await sleep(gapMs);
        if (closed || socket.destroyed) return;
        socket.write(piece);
      }
    });
  });
}

describe('slow requests and silent connections', () => {
  let t: TestApp;
  let token: string;
  const log = captureLogLines();
  before(async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'sa-slow-')), 'data');
    t = await createTestApp('sqlite', {
      listen: true,
      logStream: log.sink,
      env: { REQUEST_TIMEOUT: '2', IDLE_TIMEOUT: '1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    });
    const demo = await seedDemo(t);
    token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['storage:write'] });
  });
  after(() => t.close());

  it('a token request whose body trickles in is answered 408 in JSON within REQUEST_TIMEOUT (plus the 1 s check) and closed', async () => {
    const head =
      'POST /api/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n';
    // One byte every 500 ms: never silent for IDLE_TIMEOUT, so only REQUEST_TIMEOUT can end it.
    const pieces = Array.from({ length: 40 }, () => Buffer.from('a'));
    const { text, closedAfter } = await trickle(t.url, head, pieces, 500, 10_000);
    assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(text, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    assert.match(text, /\r\nConnection: close\r\n/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(body, {
      error: 'invalid_request',
      error_description: 'the request did not arrive in time; send it again',
    });
    assert.ok(closedAfter >= 1900 && closedAfter < 4500, `closed after ${closedAfter} ms`);
    // The route that was reading the body logs (and counts) the 408 the client got, not a 400.
    await sleep(200);
    const line = log.lines.find((l) => l.url === '/api/oauth/token');
    assert.equal(line?.statusCode, 408, JSON.stringify(log.lines));
  });

  it('a connection that sends nothing after its answer is closed after IDLE_TIMEOUT', async () => {
    const head = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const { text, closedAfter } = await trickle(t.url, head, [], 0, 10_000);
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.ok(closedAfter < 3000, `closed after ${closedAfter} ms`);
  });

  it('a slow upload that arrives in full within REQUEST_TIMEOUT is stored', async () => {
    const { payload, headers } = multipartBody('notes.txt', 'x'.repeat(2000));
    const head = `POST /api/v1/schools/demo/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`;
    // Four pieces 400 ms apart: 1.6 s in all, each gap shorter than IDLE_TIMEOUT.
    const quarter = Math.ceil(payload.length / 4);
    const pieces = [0, 1, 2, 3].map((i) => payload.subarray(i * quarter, (i + 1) * quarter));
    const { text } = await trickle(t.url, head, pieces, 400, 10_000);
    assert.match(text, /^HTTP\/1\.1 201 /, text);
  });
});
