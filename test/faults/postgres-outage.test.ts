/**
 * Issue 23 §1: PostgreSQL goes away under load. The instances reach the machine's PostgreSQL
 * through a TCP proxy the test cuts (the server itself keeps running: other suites share it).
 * While it is cut, every request answers 503 `temporarily_unavailable` with Retry-After within
 * DATABASE_TIMEOUT and no process exits; once it is back, both instances serve again without a
 * restart, every token issued before still works, and an exchange or refresh whose answer was
 * lost can be sent again.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it, type TestContext } from 'node:test';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { dropSchema, listenApp, newSchemaName, PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { createPerson, type Person } from '../helpers/flow.js';
import { assertNothingHalfWritten } from '../helpers/integrity.js';
import { Load, type Outcome } from '../helpers/load.js';
import {
  codeViaPages,
  exchangeCode,
  getAccount,
  postForm,
  refreshTokens,
  registerClient,
  tokensViaPages,
} from '../helpers/remote-client.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { sleep, timedFetch, waitFor } from '../helpers/wait.js';
import { type Cluster, startCluster } from '../multi-instance/cluster.js';

const REDIRECT = 'http://127.0.0.1:9999/callback';
const OUTAGE_MS = 10_000;
/** DATABASE_TIMEOUT's default. */
const DATABASE_TIMEOUT_MS = 5000;
/** A busy two-core machine: what an answer may take beyond the bound it is held to. */
const SLACK_MS = 1500;

function proxyFor(url: string): Promise<TcpProxy> {
  const target = new URL(url);
  return new TcpProxy(target.hostname, Number(target.port || 5432)).start();
}

const register = (at: string) => registerClient(at, REDIRECT, 'Outage agent');

/** What a client may see from a database outage: a 503 it can read and retry, and nothing else. */
function assertUnavailable(o: Outcome): void {
  const what = `${o.kind} ${o.url} answered ${o.status} ${o.error ?? ''}`;
  assert.equal(o.status, 503, what);
  assert.match(o.retryAfter ?? '', /^\d+$/, `${what}: Retry-After`);
  // The browser pages answer a page a person can read; every other endpoint the JSON error.
  if (['authorize', 'signin', 'consent'].includes(o.kind))
    assert.match(o.contentType ?? '', /^text\/html/, what);
  else assert.equal(o.error, 'temporarily_unavailable', what);
}

/** Cleanup steps of one test, run last-first when it ends, pass or fail. */
function cleanupOf(t: TestContext): Array<() => Promise<unknown>> {
  const steps: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const step of steps.reverse()) await step().catch(() => undefined);
  });
  return steps;
}

describe('PostgreSQL goes away', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  it('cut for 10 s under load on two instances: 503 temporarily_unavailable with Retry-After, no exit; serving again within 5 s, nothing lost', async (t) => {
    const cleanup = cleanupOf(t);
    const proxy = await proxyFor(PG_URL!);
    cleanup.push(() => proxy.close());
    const cluster: Cluster = await startCluster({}, (url) => proxy.rewrite(url));
    cleanup.push(() => cluster.close());
    const storage: Storage = await openStorage(cluster.databaseUrl);
    cleanup.push(() => storage.close());
    const person = await createPerson(storage.store);
    const clientId = await register(cluster.a.url);
    const servers = [cluster.a, cluster.b];
    const load = new Load({
      targets: servers.map((s) => s.url),
      clientId,
      redirectUri: REDIRECT,
      person,
      agents: 4,
    }).start();
    cleanup.push(() => load.stop());
    await waitFor(
      'load issues tokens',
      () => load.issued.filter((i) => i.kind === 'refresh').length >= 6,
      30_000,
    ).catch((error: Error) => assert.fail(`${error.message}: ${load.summary()}`));

    // A client's code and refresh token, to be sent while the database is away and again after.
    const client = { id: clientId, redirect: REDIRECT };
    const pendingCode = await codeViaPages(cluster.a.url, client, { person });
    const pendingRefresh = (await tokensViaPages(cluster.b.url, client, { person })).refresh_token;

    const cutAt = Date.now();
    proxy.cut('refuse');
    for (const answer of [
      await exchangeCode(cluster.b.url, client, pendingCode),
      await refreshTokens(cluster.a.url, client, pendingRefresh),
    ]) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal((JSON.parse(answer.body) as { error: string }).error, 'temporarily_unavailable');
    }
    while (Date.now() < cutAt + OUTAGE_MS) {
      for (const server of servers) {
        const ready = await timedFetch(`${server.url}/readyz`);
        assert.equal(ready.status, 503, `${server.url}/readyz while the database is down`);
        assert.ok(ready.ms < 2000, `/readyz answered in ${ready.ms} ms`);
        assert.equal(server.child.exitCode, null, `${server.url} is still running:\n${server.output()}`);
      }
      await sleep(500);
    }
    const restoreAt = Date.now();
    await proxy.restore();

    // Both serve again, without a restart: a protected GET with a token issued before the outage.
    const before = load.issued.filter((i) => i.at < cutAt);
    for (const server of servers) {
      const took = await waitFor(
        `${server.url} serves again`,
        async () => (await getAccount(server.url, before[0]!.accessToken)).status === 200,
        DATABASE_TIMEOUT_MS + SLACK_MS,
      );
      assert.ok(Date.now() - restoreAt <= 5000 + SLACK_MS, `${server.url} served again after ${took} ms`);
    }
    await sleep(1000);
    await load.stop();
    const recoveredAt = Date.now() - 1000;

    const during = load.outcomes.filter((o) => o.start >= cutAt + 200 && o.end <= restoreAt);
    assert.ok(during.length >= 10, `requests were made during the outage (${during.length})`);
    for (const o of during) assertUnavailable(o);
    for (const o of load.outcomes) {
      assert.ok(o.status !== 0, `${o.kind} ${o.url}: an answer, not a failed connection (${o.error})`);
      if (o.status >= 500) assertUnavailable(o);
      // While the database is away no request waits longer than DATABASE_TIMEOUT (before and
      // after, only the machine's load decides).
      if (o.end >= cutAt && o.start <= restoreAt) {
        assert.ok(
          o.end - o.start <= DATABASE_TIMEOUT_MS + SLACK_MS,
          `${o.kind} ${o.url} took ${o.end - o.start} ms`,
        );
      }
    }
    const after = load.outcomes.filter((o) => o.start >= recoveredAt);
    assert.ok(
      after.length > 0 && after.every((o) => o.status < 500),
      'every request after the recovery succeeds',
    );

    // Every token issued before the outage still works, at either instance.
    for (const [i, issued] of before.slice(-30).entries()) {
      const response = await getAccount(servers[i % 2]!.url, issued.accessToken);
      assert.equal(response.status, 200, `an access token issued before the outage: ${response.body}`);
    }
    for (const [i, issued] of before
      .filter((b) => b.kind === 'refresh')
      .slice(-10)
      .entries()) {
      const response = await postForm(`${servers[i % 2]!.url}/api/oauth/token`, {
        grant_type: 'refresh_token',
        refresh_token: issued.refreshToken,
        client_id: clientId,
      });
      assert.equal(
        response.status,
        200,
        `a refresh token issued before the outage: ${await response.text()}`,
      );
    }
    // An exchange or refresh whose answer was lost: sent again, it succeeds or is a clean invalid_grant.
    const exchanged = await exchangeCode(cluster.a.url, client, pendingCode);
    assert.equal(exchanged.status, 200, `the exchange sent again: ${exchanged.body}`);
    const refreshed = await refreshTokens(cluster.b.url, client, pendingRefresh);
    assert.equal(refreshed.status, 200, `the refresh sent again: ${refreshed.body}`);
    const repeated = await refreshTokens(cluster.a.url, client, pendingRefresh);
    assert.equal(repeated.status, 200, 'and again, within REFRESH_GRACE: the same pair');
    assert.equal(
      (JSON.parse(repeated.body) as { refresh_token: string }).refresh_token,
      (JSON.parse(refreshed.body) as { refresh_token: string }).refresh_token,
    );
    // The load's exchanges and refreshes cut off by the outage (some may have committed without
    // their answer): each succeeds or is a clean invalid_grant.
    const lost = load.unanswered.filter((u) => u.outcome.start >= cutAt - DATABASE_TIMEOUT_MS);
    for (const { url, form } of lost) {
      const response = await postForm(url, form);
      const body = await response.text();
      if (response.status !== 200) {
        assert.equal(response.status, 400, `sent again: ${body}`);
        assert.equal((JSON.parse(body) as { error: string }).error, 'invalid_grant');
      }
    }
    await assertNothingHalfWritten(storage.db);

    // The key-rotation listeners subscribed again: a rotation shows at once (the fallback poll is 5 s, the wait below shorter).
    const rotated = await cli(cluster.databaseUrl, ['keys', 'rotate']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const kid = /new signing key ([^\s:]+)/.exec(rotated.stdout)![1]!;
    for (const server of servers) {
      await waitFor(
        `${server.url} publishes the rotated key`,
        async () => (await timedFetch(`${server.url}/.well-known/jwks.json`)).body.includes(kid),
        3000,
      );
      assert.equal(server.child.exitCode, null);
    }
  });

  it('a stalled connection (packets dropped): every request answers 503 within DATABASE_TIMEOUT, and serves again after', async (t) => {
    const cleanup = cleanupOf(t);
    const proxy = await proxyFor(PG_URL!);
    cleanup.push(() => proxy.close());
    const schema = newSchemaName();
    cleanup.push(() => dropSchema(schema));
    const databaseUrl = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
    const logs: string[] = [];
    const server = await listenApp(
      {
        DATABASE_URL: proxy.rewrite(databaseUrl),
        DATABASE_TIMEOUT: '1',
        DATABASE_POOL_SIZE: '4',
        LOG_LEVEL: 'error',
      },
      new Writable({
        write(chunk, _encoding, done) {
          logs.push(chunk.toString());
          done();
        },
      }),
    );
    cleanup.push(() => server.stop());
    const storage = await openStorage(databaseUrl);
    cleanup.push(() => storage.close());
    const person: Person = await createPerson(storage.store);
    const clientId = await register(server.url);
    const client = { id: clientId, redirect: REDIRECT };
    const tokens = await tokensViaPages(server.url, client, { person });

    proxy.cut('stall');
    const refresh = () => refreshTokens(server.url, client, tokens.refresh_token);
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => getAccount(server.url, tokens.access_token)),
      ...Array.from({ length: 3 }, refresh),
    ]);
    for (const answer of answers) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal((JSON.parse(answer.body) as { error: string }).error, 'temporarily_unavailable');
      assert.ok(answer.headers.get('retry-after'));
      assert.ok(answer.ms <= 1000 + SLACK_MS, `answered after ${answer.ms} ms (DATABASE_TIMEOUT=1)`);
    }
    const ready = await timedFetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.ok(ready.ms < 2000, `/readyz answered in ${ready.ms} ms`);
    assert.match(
      logs.join(''),
      /database did not answer within DATABASE_TIMEOUT \(postgres 127\.0\.0\.1:\d+\//,
    );

    const restoredAt = Date.now();
    await proxy.restore();
    await waitFor(
      'serves again',
      async () => (await getAccount(server.url, tokens.access_token)).status === 200,
      5000,
    );
    assert.ok(Date.now() - restoredAt <= 5000);
    // The refresh never reached the database: sent again, it rotates.
    assert.equal((await refresh()).status, 200);
  });
});
