import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { RequestSeries } from '../../src/ops/request-series.js';

/** The exposition's samples, `name{labels}` → value, as prom-client formats them. */
async function samples(registry: Registry): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await registry.metrics()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('request series (schoolauth_http_requests_total, _duration_seconds)', () => {
  it('counts each answer once under its method, route and status, and no other', async () => {
    const registry = new Registry();
    const series = new RequestSeries(registry);
    series.observe('GET', '/a', 200, 0.001);
    series.observe('GET', '/a', 200, 0.001);
    series.observe('GET', '/a', 404, 0.001);
    series.observe('POST', '/a', 200, 0.001);
    series.observe('GET', '/b', 200, 0.001);
    // Labels that a joined key could confuse: a route with a space, and a status-like route.
    series.observe('GET', '200 GET /a', 200, 0.001);
    const total = [...(await samples(registry))].filter(([name]) =>
      name.startsWith('schoolauth_http_requests_total'),
    );
    assert.deepEqual(
      new Map(total),
      new Map([
        ['schoolauth_http_requests_total{method="GET",route="/a",status="200"}', 2],
        ['schoolauth_http_requests_total{method="GET",route="/a",status="404"}', 1],
        ['schoolauth_http_requests_total{method="POST",route="/a",status="200"}', 1],
        ['schoolauth_http_requests_total{method="GET",route="/b",status="200"}', 1],
        ['schoolauth_http_requests_total{method="GET",route="200 GET /a",status="200"}', 1],
      ]),
    );
  });

  it('keeps one latency histogram per method and route, whatever the status', async () => {
    const registry = new Registry();
    const series = new RequestSeries(registry);
    series.observe('GET', '/a', 200, 0.003);
    series.observe('GET', '/a', 500, 0.2);
    series.observe('GET', '/a', 200, 7);
    const all = await samples(registry);
    const bucket = (le: string) =>
      all.get(`schoolauth_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/a"}`);
    assert.equal(bucket('0.005'), 1);
    assert.equal(bucket('0.25'), 2);
    assert.equal(bucket('5'), 2);
    assert.equal(bucket('+Inf'), 3);
    assert.equal(all.get('schoolauth_http_request_duration_seconds_count{method="GET",route="/a"}'), 3);
    assert.equal(all.get('schoolauth_http_request_duration_seconds_sum{method="GET",route="/a"}'), 7.203);
  });
});
