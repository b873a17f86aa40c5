import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { mintSecret } from '../../src/crypto/tokens.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { Browser, createPerson, pageText, readForm } from '../helpers/flow.js';
import * as oauth from '../helpers/oauth.js';
import { mintAccessToken } from '../helpers/tokens.js';
import { secondInstance } from './second-instance.js';

const LIMITS = {
  RATE_LIMITS: 'on',
  RATE_LIMIT_REGISTER: '3',
  RATE_LIMIT_SIGNIN: '2',
  RATE_LIMIT_API: '3',
  RATE_LIMIT_TOKEN: '3',
  // The flush timer never fires during a test: the tests flush when they mean to.
  RATE_LIMIT_FLUSH_MS: '60000',
};

const JUNK = 1500;

function register(app: FastifyInstance, ip: string) {
  return app.inject({
    method: 'POST',
    url: '/api/oauth/register',
    remoteAddress: ip,
    payload: { redirect_uris: ['http://127.0.0.1:8080/cb'], client_name: 'RL' },
  });
}

function assertRateLimited(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  assert.equal(response.statusCode, 429);
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60 * 60,
    `Retry-After ${retryAfter}`,
  );
  assert.equal((response.json() as { error: string }).error, 'rate_limited');
  assert.equal(response.headers['cache-control'], 'no-store');
}

/** Moves the test clock to the start of the next minute: windows are aligned to the clock. */
function openWindow(t: TestApp): void {
  t.clock.advance(60 - (t.clock.now() % 60));
}

/** The rate-limit rows of the endpoint limits (the sign-in throttle keeps its own rows). */
async function endpointRows(t: TestApp) {
  const rows = await t.ctx.db.selectFrom('rate_limits').select(['key', 'count']).orderBy('key').execute();
  return rows.filter((row) => !row.key.startsWith('signin:'));
}

/** Sends JUNK requests, 50 at a time; answers how many got each status. */
async function junk(send: () => Promise<number>): Promise<Record<number, number>> {
  const tally: Record<number, number> = {};
  for (let sent = 0; sent < JUNK; sent += 50) {
    for (const status of await Promise.all(Array.from({ length: 50 }, send))) {
      tally[status] = (tally[status] ?? 0) + 1;
    }
  }
  return tally;
}

/** A token request from `ip` (refresh_token grant unless `form` says otherwise). */
function tokenFrom(app: FastifyInstance, ip: string, form: oauth.Form, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: oauth.formBody({ grant_type: 'refresh_token', ...form }),
  });
}

/** Rows keyed by this client IP. */
async function ipRows(t: TestApp, ip: string) {
  return (await endpointRows(t)).filter((row) => row.key.endsWith(`:${ip}`));
}

/**
 * After a flush: on PostgreSQL the one row of the IP's window holds every junk hit; on SQLite
 * memory is the truth and nothing is written.
 */
async function assertFlushedAsOneIpRow(t: TestApp, scope: string, ip: string) {
  await t.app.rateLimits.flush();
  const key = `${scope}:${ip}`;
  assert.deepEqual(await ipRows(t, ip), t.dialect === 'postgres' ? [{ key, count: JUNK }] : []);
}

for (const dialect of DIALECTS) {
  describe(`rate limits over HTTP [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true, env: LIMITS });
    });
    after(() => t.close());

    it('per-IP limits count an IPv6 /64 as one network: a new address of the same /64 gets no new allowance', async () => {
      openWindow(t);
      for (let i = 1; i <= 3; i++) {
        assert.equal((await register(t.app, `2001:db8:aa:bb::${i}`)).statusCode, 201);
      }
      assertRateLimited(await register(t.app, '2001:db8:aa:bb:ffff:1:2:3'));
      assert.equal(
        (await register(t.app, '2001:db8:aa:cc::1')).statusCode,
        201,
        'another /64 is another network',
      );
    });

    it('registration: RATE_LIMIT_REGISTER per minute per IP, then 429 with Retry-After', async () => {
      openWindow(t);
      for (let i = 0; i < 3; i++) assert.equal((await register(t.app, '192.0.2.1')).statusCode, 201);
      assertRateLimited(await register(t.app, '192.0.2.1'));
      assert.deepEqual(
        await ipRows(t, '192.0.2.1'),
        [],
        'counted in memory: no row written on the request path',
      );
      assert.equal((await register(t.app, '192.0.2.2')).statusCode, 201, 'another IP has its own budget');
      t.clock.advance(60);
      assert.equal((await register(t.app, '192.0.2.1')).statusCode, 201, 'a new window opens');
    });

    it('sign-in: RATE_LIMIT_SIGNIN failures, then 429 even with the right password', async () => {
      const person = await createPerson(t.ctx.store);
      const browser = new Browser(t.url);
      const attempt = async (password: string) => {
        const form = readForm(await (await browser.get('/signin')).text());
        return browser.post(form.action, { ...form.fields, email: person.email, password });
      };
      for (let i = 0; i < 2; i++) assert.equal((await attempt('wrong password!')).status, 200);
      const blocked = await attempt(person.password);
      assert.equal(blocked.status, 429);
      assert.ok(['59', '60'].includes(blocked.headers.get('retry-after')!), 'one minute, the first back-off');
      // A person is answered on the sign-in page, not with JSON.
      assert.match(blocked.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(
        pageText(await blocked.text()),
        /Too many failed sign-ins\. Wait a minute and try again\./,
      );
      t.clock.advance(60);
      assert.equal((await attempt(person.password)).status, 303, 'signed in once the back-off has passed');
    });

    it('API: RATE_LIMIT_API per minute per access token; anonymous callers per IP', async () => {
      openWindow(t);
      const person = await createPerson(t.ctx.store);
      const token = await mintAccessToken(t, { accountId: person.account.id, scopes: ['account:read'] });
      const other = await mintAccessToken(t, { accountId: person.account.id, scopes: ['account:read'] });
      const get = (bearer?: string) =>
        t.app.inject({
          url: '/api/v1/account',
          remoteAddress: '192.0.2.50',
          headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
        });
      for (let i = 0; i < 3; i++) assert.equal((await get(token)).statusCode, 200);
      assertRateLimited(await get(token));
      assert.equal((await get(other)).statusCode, 200, 'another token has its own budget');
      for (let i = 0; i < 3; i++) assert.equal((await get()).statusCode, 403);
      assertRateLimited(await get());
    });

    it('API: 1,500 made-up tokens count against the client IP and write no row; a valid token keeps its own allowance', async () => {
      openWindow(t);
      const person = await createPerson(t.ctx.store);
      const valid = await mintAccessToken(t, { accountId: person.account.id, scopes: ['account:read'] });
      const get = (bearer: string) =>
        t.app.inject({
          url: '/api/v1/account',
          remoteAddress: '192.0.2.60',
          headers: { authorization: `Bearer ${bearer}` },
        });
      const statuses = await junk(async () => (await get(mintSecret('accessToken').value)).statusCode);
      assert.deepEqual(
        statuses,
        { 401: 3, 429: JUNK - 3 },
        'judged while the IP is within its allowance, then refused',
      );
      assert.deepEqual(await ipRows(t, '192.0.2.60'), [], 'no rate-limit row written on the request path');
      for (let i = 0; i < 3; i++)
        assert.equal((await get(valid)).statusCode, 200, 'a valid token is not the IP');
      assertRateLimited(await get(valid));
      await assertFlushedAsOneIpRow(t, 'api:ip', '192.0.2.60');
    });

    it('token endpoint: RATE_LIMIT_TOKEN per minute per confidential client that authenticated, its failed grants included', async () => {
      openWindow(t);
      const client = await oauth.registerConfidential(t);
      const other = await oauth.registerConfidential(t);
      const person = await oauth.createPerson(t);
      const tokens = await oauth.tokensFor(t, client, person);
      for (let i = 0; i < 2; i++) {
        assert.equal((await oauth.refresh(t, client, 'sa_rt_unknown')).statusCode, 400);
      }
      const limited = await oauth.refresh(t, client, tokens.refresh_token);
      assertRateLimited(limited);
      const stillValid = await oauth.introspect(t, client, tokens.refresh_token);
      assert.equal(stillValid.json().active, true, 'a refused request changes nothing');
      assert.equal(
        (await oauth.refresh(t, other, 'sa_rt_unknown')).statusCode,
        400,
        'another client has its own budget',
      );
    });

    it('token endpoint: 1,500 made-up client ids count against the client IP and write no row; a client that authenticates keeps its own allowance', async () => {
      openWindow(t);
      const client = await oauth.registerConfidential(t);
      const post = (clientId: string, clientSecret?: string) =>
        tokenFrom(t.app, '192.0.2.70', {
          refresh_token: 'sa_rt_unknown',
          client_id: clientId,
          client_secret: clientSecret,
        });
      const statuses = await junk(
        async () => (await post(`dyn_${randomBytes(16).toString('hex')}`)).statusCode,
      );
      assert.deepEqual(
        statuses,
        { 401: 3, 429: JUNK - 3 },
        'invalid_client while the IP is within its allowance, then refused',
      );
      assert.deepEqual(await ipRows(t, '192.0.2.70'), [], 'no rate-limit row written on the request path');
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (await post(client.client_id, client.client_secret)).statusCode,
          400,
          'a client that authenticates is not the IP',
        );
      }
      assertRateLimited(await post(client.client_id, client.client_secret));
      await assertFlushedAsOneIpRow(t, 'token:ip', '192.0.2.70');
      // Naming a known client without its secret is junk too: the exhausted IP answers.
      assertRateLimited(await post(client.client_id));
    });

    it('token endpoint: a client authenticating with HTTP Basic counts against its client_id, not the IP', async () => {
      openWindow(t);
      const client = await oauth.registerConfidential(t);
      const other = await oauth.registerConfidential(t);
      const refreshAs = (c: oauth.RegisteredClient) =>
        oauth.postForm(
          t,
          '/api/oauth/token',
          { grant_type: 'refresh_token', refresh_token: 'sa_rt_unknown' },
          { authorization: oauth.basicAuthorization(c.client_id, c.client_secret) },
        );
      for (let i = 0; i < 3; i++) assert.equal((await refreshAs(client)).statusCode, 400);
      assertRateLimited(await refreshAs(client));
      assert.equal((await refreshAs(other)).statusCode, 400, 'another client has its own budget');
    });

    it('token endpoint: junk naming a confidential client without its secret, from another address, never makes its correct refresh answer 429', async () => {
      openWindow(t);
      const client = await oauth.registerConfidential(t);
      const tokens = await oauth.tokensFor(t, client, await oauth.createPerson(t));
      const stranger = '192.0.2.80';
      const tally: Record<number, number> = {};
      for (let i = 0; i < 30; i++) {
        const kind = i % 3;
        const response = await tokenFrom(
          t.app,
          stranger,
          {
            refresh_token: tokens.refresh_token,
            client_id: kind === 2 ? undefined : client.client_id,
            client_secret: kind === 1 ? 'not the secret' : undefined,
          },
          // No secret in the body, a wrong one, and a Basic header with an empty password.
          kind === 2 ? { authorization: oauth.basicAuthorization(client.client_id) } : {},
        );
        tally[response.statusCode] = (tally[response.statusCode] ?? 0) + 1;
      }
      assert.deepEqual(tally, { 401: 3, 429: 27 }, 'the stranger spends its own address’s allowance');
      const correct = await oauth.refresh(t, client, tokens.refresh_token);
      assert.equal(correct.statusCode, 200, correct.body);
      await t.app.rateLimits.flush();
      assert.deepEqual(
        await endpointRows(t).then((rows) =>
          rows.filter((row) =>
            [`token:client:${client.client_id}`, `token:ip:${stranger}`].includes(row.key),
          ),
        ),
        t.dialect === 'postgres'
          ? [
              { key: `token:client:${client.client_id}`, count: 2 },
              { key: `token:ip:${stranger}`, count: 30 },
            ]
          : [],
        'the code exchange and the refresh count against the client; the junk against the stranger',
      );
    });

    it('token endpoint: refused DPoP proofs count against the caller’s address, then 429', async () => {
      openWindow(t);
      const ip = '192.0.2.82';
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await tokenFrom(
          t.app,
          ip,
          { refresh_token: 'sa_rt_x', client_id: 'x' },
          { dpop: 'not.a.proof' },
        );
        statuses.push(response.statusCode);
        if (response.statusCode === 429) assertRateLimited(response);
        else assert.equal((response.json() as { error: string }).error, 'invalid_dpop_proof');
      }
      assert.deepEqual(statuses, [400, 400, 400, 429, 429]);
    });

    it('token endpoint: a public client counts against the caller’s address, so junk naming it from another address never makes its refresh answer 429', async () => {
      openWindow(t);
      const client = await oauth.register(t);
      const tokens = await oauth.tokensFor(t, client, await oauth.createPerson(t));
      const stranger = '192.0.2.81';
      const tally: Record<number, number> = {};
      for (let i = 0; i < 30; i++) {
        const response = await tokenFrom(t.app, stranger, {
          refresh_token: `sa_rt_guess${i}`,
          client_id: client.client_id,
        });
        tally[response.statusCode] = (tally[response.statusCode] ?? 0) + 1;
      }
      assert.deepEqual(
        tally,
        { 400: 3, 429: 27 },
        'invalid_grant within the stranger’s allowance, then refused',
      );
      const correct = await oauth.refresh(t, client, tokens.refresh_token);
      assert.equal(correct.statusCode, 200, correct.body);
    });

    if (dialect === 'postgres') {
      it('two instances on one database share a limit through the flush', async () => {
        const b = await secondInstance(t);
        try {
          openWindow(t);
          const a = t.app;
          const statuses = async (app: FastifyInstance, n: number) => {
            const out = [];
            for (let i = 0; i < n; i++) out.push((await register(app, '192.0.2.9')).statusCode);
            return out;
          };
          assert.deepEqual(await statuses(a, 2), [201, 201]);
          await a.rateLimits.flush();
          // B has not flushed this key yet: it counts its own hit and learns A's two at its flush.
          assert.deepEqual(await statuses(b.app, 1), [201]);
          await b.app.rateLimits.flush();
          assert.deepEqual(await statuses(b.app, 1), [429], 'B counts A’s two registrations');
          // A last heard of the row before B's hit: its next hit is the one the bound of docs/configuration.md "Rate limits" allows.
          assert.deepEqual(await statuses(a, 1), [201]);
          await a.rateLimits.flush();
          assert.deepEqual(await statuses(a, 1), [429], 'A counts B’s hit from its next flush on');
        } finally {
          await b.close();
        }
      });

      it('two instances: junk naming a client at A counts against the stranger’s address at B too, never against the client', async () => {
        const b = await secondInstance(t);
        try {
          openWindow(t);
          const client = await oauth.registerConfidential(t);
          const tokens = await oauth.tokensFor(t, client, await oauth.createPerson(t));
          const stranger = '192.0.2.82';
          const junkAt = async (app: FastifyInstance) =>
            (
              await tokenFrom(app, stranger, {
                refresh_token: tokens.refresh_token,
                client_id: client.client_id,
              })
            ).statusCode;
          const atA = [];
          for (let i = 0; i < 20; i++) atA.push(await junkAt(t.app));
          assert.deepEqual(atA, [...Array(3).fill(401), ...Array(17).fill(429)]);
          await t.app.rateLimits.flush();
          // B has not flushed this key yet: its own first hit, then A's twenty from its flush on.
          assert.equal(await junkAt(b.app), 401);
          await b.app.rateLimits.flush();
          assert.equal(await junkAt(b.app), 429, 'B counts A’s junk against the stranger’s address');
          const correct = await b.app.inject({
            method: 'POST',
            url: '/api/oauth/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: oauth.formBody({
              grant_type: 'refresh_token',
              refresh_token: tokens.refresh_token,
              ...oauth.clientCredentials(client),
            }),
          });
          assert.equal(correct.statusCode, 200, correct.body);
        } finally {
          await b.close();
        }
      });

      it('closing an instance sends its last counts, so the others count them', async () => {
        const b = await secondInstance(t);
        openWindow(t);
        assert.equal((await register(b.app, '192.0.2.10')).statusCode, 201);
        assert.deepEqual(await ipRows(t, '192.0.2.10'), []);
        await b.close();
        assert.deepEqual(await ipRows(t, '192.0.2.10'), [{ key: 'register:ip:192.0.2.10', count: 1 }]);
      });
    }
  });
}
