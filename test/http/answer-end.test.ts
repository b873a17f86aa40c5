import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AnswerEnded, EndingResponse } from '../../src/http/answer-end.js';
import { metricsText } from '../../src/ops/metrics.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';

/** A plain Node server on a free loopback port, answering with `handle`. */
async function plainServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  options: { ServerResponse?: typeof ServerResponse } = {},
) {
  const server = createServer(options, handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A GET whose path is sent exactly as given (fetch would normalise it). */
function rawGet(url: string, path: string): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/`, { path, agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** `schoolauth_http_requests_total` for this route and status. */
async function answered(route: string, status: number): Promise<number> {
  const text = await metricsText();
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`schoolauth_http_requests_total{method="GET",route="${route}",status="${status}"} `),
    );
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('EndingResponse: when an answer ends', () => {
  it('calls its watcher once, at end, with the time since the request arrived', async () => {
    const calls: Parameters<AnswerEnded>[] = [];
    const { server, url } = await plainServer(
      (_req, res) => {
        (res as EndingResponse).ended = (...args) => calls.push(args);
        setTimeout(() => {
          res.end('done');
          res.end();
        }, 20);
      },
      { ServerResponse: EndingResponse },
    );
    try {
      assert.equal(await (await fetch(url)).text(), 'done');
      assert.equal(calls.length, 1, 'one call, though end() was called twice');
      const [elapsedMs, error] = calls[0]!;
      assert.ok(elapsedMs >= 15 && elapsedMs < 5000, `elapsed ${elapsedMs} ms`);
      assert.equal(error, undefined);
    } finally {
      server.close();
    }
  });

  it('calls it with the error when the answer is destroyed by one, and not when the client left', async () => {
    const calls: Parameters<AnswerEnded>[] = [];
    const failure = new Error('stream broke');
    let answer = 0;
    const { server, url } = await plainServer(
      (_req, res) => {
        (res as EndingResponse).ended = (...args) => calls.push(args);
        res.on('error', () => undefined);
        answer += 1;
        res.destroy(answer === 1 ? failure : undefined);
      },
      { ServerResponse: EndingResponse },
    );
    try {
      await assert.rejects(fetch(url));
      await assert.rejects(fetch(url));
      assert.equal(calls.length, 1);
      assert.equal(calls[0]![1], failure);
    } finally {
      server.close();
    }
  });
});

describe("a listening server's answers: logged and counted when they end", () => {
  let t: TestApp;
  const { sink, lines } = captureLogLines();
  before(async () => {
    t = await createTestApp('sqlite', {
      listen: true,
      env: { LOG_LEVEL: 'info', LOG_REQUESTS: 'all' },
      logStream: sink,
    });
  });
  after(() => t.close());

  for (const { name, path, status, route } of [
    {
      name: 'a route',
      path: '/.well-known/openid-configuration',
      status: 200,
      route: '/.well-known/openid-configuration',
    },
    { name: 'the 404 handler', path: '/no/such/route', status: 404, route: 'unmatched' },
    {
      name: 'the request-line check (414)',
      path: `/x?${'a'.repeat(10_000)}`,
      status: 414,
      route: 'unmatched',
    },
    {
      name: "the router's bad-URL answer, before any hook",
      path: '/api/v1/courses/%zz',
      status: 400,
      route: 'unmatched',
    },
  ]) {
    it(`${name}: one line with the answer's request id and status, and one count`, async () => {
      const before = await answered(route, status);
      const response = await rawGet(t.url, path);
      assert.equal(response.status, status);
      // The line is written after the answer's end is handed to Node: give the log a turn.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const mine = lines.filter((l) => l.reqId === response.requestId);
      assert.equal(mine.length, 1, JSON.stringify(mine));
      assert.equal(mine[0]!.msg, 'request completed');
      assert.equal(mine[0]!.statusCode, status);
      assert.equal(typeof mine[0]!.responseTime, 'number');
      assert.equal(await answered(route, status), before + 1);
    });
  }

  it("answers through EndingResponse, with no per-response listener of Fastify's", async () => {
    // Node's own server adds its listeners to every response; a plain server shows how many.
    const counts = (res: ServerResponse) => ({
      ending: res instanceof EndingResponse,
      finish: res.listenerCount('finish'),
      error: res.listenerCount('error'),
    });
    let plainCounts: ReturnType<typeof counts> | undefined;
    const plain = await plainServer((_req, res) => {
      plainCounts = counts(res);
      res.end();
    });
    try {
      await fetch(plain.url);
    } finally {
      plain.server.close();
    }
    let ours: ReturnType<typeof counts> | undefined;
    // Fastify's own request listener runs first; by then it would have added its listeners.
    const seen = (_req: IncomingMessage, res: ServerResponse) => {
      ours = counts(res);
    };
    t.app.server.on('request', seen);
    try {
      await fetch(`${t.url}/.well-known/openid-configuration`);
    } finally {
      t.app.server.off('request', seen);
    }
    assert.deepEqual(ours, { ...plainCounts, ending: true });
  });
});
