import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordAudit } from '../../src/audit/audit.js';
import { startMetricsServer } from '../../src/ops/metrics-routes.js';
import { createTestApp, freePort, type TestApp } from '../helpers/app.js';
import { insertTestClient, pkcePair } from '../helpers/flow.js';

const TOKEN = 'metrics-secret-0123456789';

/** Prometheus text exposition format 0.0.4: comments, or `name{labels} value`. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const sample =
    /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)( \d+)?$/;
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const match = sample.exec(line);
    assert.ok(match, `not a Prometheus line: ${JSON.stringify(line)}`);
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any letter case.
    const raw = match[3]!;
    const value = /^nan$/i.test(raw) ? 0 : /^[+-]?inf$/i.test(raw) ? Infinity : Number(raw);
    assert.ok(!Number.isNaN(value), line);
    samples.set(match[1]! + (match[2] ?? ''), value);
  }
  return samples;
}

describe('/metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { env: { METRICS_TOKEN: TOKEN } });
  });
  after(() => t.close());

  const scrape = async () => {
    const response = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
    return parsePrometheus(response.body);
  };

  it('is refused without the bearer secret, and with a wrong one', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-secret-0123456789' },
      { authorization: TOKEN },
    ]) {
      const response = await t.app.inject({ url: '/metrics', headers });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_token');
      assert.doesNotMatch(response.body, /schoolauth_/);
    }
  });

  it('parses as Prometheus text and counts requests by route and status, with latency', async () => {
    await t.app.inject({ url: '/healthz' });
    await t.app.inject({ url: '/no/such/path/123' });
    const samples = await scrape();
    assert.ok(
      (samples.get('schoolauth_http_requests_total{method="GET",route="/healthz",status="200"}') ?? 0) >= 1,
    );
    assert.ok(
      (samples.get('schoolauth_http_requests_total{method="GET",route="unmatched",status="404"}') ?? 0) >= 1,
    );
    assert.ok(
      (samples.get('schoolauth_http_request_duration_seconds_count{method="GET",route="/healthz"}') ?? 0) >=
        1,
    );
    assert.ok(
      [...samples.keys()].every((k) => !k.includes('/no/such/path')),
      'raw URLs never become labels',
    );
  });

  it('counts OAuth errors by code and security events from the audit trail', async () => {
    const before = await scrape();
    await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer nope' } });
    // An error sent back to the client as a redirect counts too.
    const client = await insertTestClient(t.ctx.db);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'no-such-scope',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    const redirect = await t.app.inject({ url: `/oauth/authorize?${query}` });
    assert.match(redirect.headers.location as string, /error=invalid_scope/);
    const now = t.clock.now();
    for (const kind of [
      'token.issued',
      'token.refreshed',
      'token.revoked',
      'code.replayed',
      'refresh.reused',
    ] as const) {
      await recordAudit(t.ctx.store, { kind }, now);
    }
    const after = await scrape();
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    assert.equal(delta('schoolauth_oauth_errors_total{code="invalid_token"}'), 1);
    assert.equal(delta('schoolauth_oauth_errors_total{code="invalid_scope"}'), 1);
    for (const name of [
      'schoolauth_tokens_issued_total',
      'schoolauth_tokens_refreshed_total',
      'schoolauth_tokens_revoked_total',
      'schoolauth_code_replays_total',
      'schoolauth_refresh_reuse_total',
    ]) {
      assert.equal(delta(name), 1, name);
    }
  });

  it('is not served without METRICS_TOKEN; METRICS_PORT serves it on a separate listener', async () => {
    const plain = await createTestApp('sqlite');
    try {
      assert.equal((await plain.app.inject({ url: '/metrics' })).statusCode, 404);
    } finally {
      await plain.close();
    }
    const port = await freePort();
    const server = await startMetricsServer('127.0.0.1', port);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(response.status, 200);
      assert.ok(parsePrometheus(await response.text()).size > 0);
      assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
