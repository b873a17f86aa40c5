import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
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
};

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

for (const dialect of DIALECTS) {
  describe(`rate limits over HTTP [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { listen: true, env: LIMITS });
    });
    after(() => t.close());

    it('registration: RATE_LIMIT_REGISTER per minute per IP, then 429 with Retry-After', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await register(t.app, '192.0.2.1')).statusCode, 201);
      assertRateLimited(await register(t.app, '192.0.2.1'));
      assert.equal((await register(t.app, '192.0.2.2')).statusCode, 201, 'another IP has its own budget');
      t.clock.advance(60);
      assert.equal((await register(t.app, '192.0.2.1')).statusCode, 201, 'a new window opens');
    });

    it('sign-in: RATE_LIMIT_SIGNIN failures, then 429 even with the right password', async () => {
      const person = await createPerson(t.ctx.db);
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
      t.clock.advance(60);
      const person = await createPerson(t.ctx.db);
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

    it('token endpoint: RATE_LIMIT_TOKEN per minute per client_id', async () => {
      t.clock.advance(60);
      const client = await oauth.register(t);
      const other = await oauth.register(t);
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

    it('token endpoint: a client authenticating with HTTP Basic counts against its client_id, not the IP', async () => {
      t.clock.advance(60);
      const client = await oauth.register(t);
      const other = await oauth.register(t);
      const refreshAs = (c: oauth.RegisteredClient) =>
        oauth.postForm(
          t,
          '/api/oauth/token',
          { grant_type: 'refresh_token', refresh_token: 'sa_rt_unknown' },
          { authorization: oauth.basicAuthorization(c.client_id) },
        );
      for (let i = 0; i < 3; i++) assert.equal((await refreshAs(client)).statusCode, 400);
      assertRateLimited(await refreshAs(client));
      assert.equal((await refreshAs(other)).statusCode, 400, 'another client has its own budget');
    });

    if (dialect === 'postgres') {
      it('limits are shared by two instances on one database', async () => {
        const b = await secondInstance(t);
        try {
          t.clock.advance(60);
          const statuses = [];
          for (const app of [t.app, b.app, t.app, b.app])
            statuses.push((await register(app, '192.0.2.9')).statusCode);
          assert.deepEqual(statuses, [201, 201, 201, 429]);
        } finally {
          await b.close();
        }
      });
    }
  });
}
