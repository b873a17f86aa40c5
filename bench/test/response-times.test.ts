/** The bench's whole-window response times: a percentile over every answer of several runs. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { runLoad } from '../load.js';
import { ResponseTimes } from '../response-times.js';

describe('bench response times over a window', () => {
  it('gives the nearest-rank p99 of every time added, to the fraction of a millisecond', () => {
    const times = new ResponseTimes();
    // 990 answers at 1.25 ms, then 10 at 7.5 ms: the 990th is still 1.25, the 991st is 7.5.
    for (let i = 0; i < 10; i++) times.add(7.5);
    for (let i = 0; i < 990; i++) times.add(1.25);
    assert.equal(times.count, 1000);
    assert.equal(times.quantile(0.99), 1.25);
    times.add(7.5);
    assert.equal(times.quantile(0.99), 7.5);
  });

  it('keeps every time across blocks, so a long window is counted whole', () => {
    const times = new ResponseTimes();
    const n = 200_000;
    for (let i = 1; i <= n; i++) times.add(i / 100);
    assert.equal(times.count, n);
    assert.equal(times.quantile(0.99), (0.99 * n) / 100);
    assert.equal(times.quantile(1), n / 100);
    assert.deepEqual(times.summary(), { count: n, p99: (0.99 * n) / 100 });
  });

  it('answers 0 for an empty window', () => {
    assert.deepEqual(new ResponseTimes().summary(), { count: 0, p99: 0 });
  });

  it('is given every 2xx answer of a real load run, and no other', async () => {
    let n = 0;
    // Every fifth answer is a 503: counted by the run, kept out of the times as out of autocannon's.
    const server = createServer((_req, res) => {
      res.statusCode = ++n % 5 === 0 ? 503 : 200;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const times = new ResponseTimes();
      const m = await runLoad({
        baseUrl: `http://127.0.0.1:${port}`,
        connections: 2,
        seconds: 1,
        plan: { kind: 'static', request: { method: 'GET', path: '/' } },
        amount: 500,
        responseTimes: times,
      });
      assert.equal(m.ok, 400);
      assert.equal(times.count, 400);
      assert.ok(times.quantile(0.99) > 0);
    } finally {
      server.close();
    }
  });
});
