import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { metricsText } from '../../src/ops/metrics.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { captureLogLines } from '../helpers/log-lines.js';

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
});
