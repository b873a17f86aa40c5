/**
 * Issue 49 §7: CORS on the routes a browser app calls — token, revocation, introspection, UserInfo,
 * registration and the school API — for loopback origins and the origins in CORS_ORIGINS, with
 * preflight, never with credentials; nothing for other origins, nothing on the pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Account } from '../../src/storage/schema.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import { mintCode, oauthSuite, postForm, type RegisteredClient, tokensFor } from '../helpers/oauth.js';

const DEV = 'http://localhost:5173';
const LISTED = 'https://app.example.com';
const STRANGER = 'https://evil.example';

const CORS_ROUTES: ReadonlyArray<readonly [string, string, string]> = [
  ['/api/oauth/token', 'POST', 'POST'],
  ['/api/oauth/revoke', 'POST', 'POST'],
  ['/api/oauth/introspect', 'POST', 'POST'],
  ['/api/oauth/register', 'POST', 'POST'],
  ['/api/oauth/userinfo', 'GET', 'GET, POST'],
  ['/api/v1/account', 'GET', 'GET, POST, PATCH, DELETE'],
  ['/api/v1/schools/demo/courses', 'PATCH', 'GET, POST, PATCH, DELETE'],
];

for (const dialect of DIALECTS) {
  describe(`CORS for browser apps (${dialect})`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let person: Account;
    before(async () => {
      ({ t, pub, person } = await oauthSuite(dialect, { env: { CORS_ORIGINS: LISTED } }));
    });
    after(() => t.close());

    const preflight = (url: string, origin: string, method: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type',
        },
      });

    it('answers the preflight of every CORS route for a loopback origin and a listed one, without credentials', async () => {
      for (const origin of [DEV, 'http://127.0.0.1:8080', 'http://[::1]:3001', LISTED]) {
        for (const [url, method, methods] of CORS_ROUTES) {
          const res = await preflight(url, origin, method);
          assert.equal(res.statusCode, 204, `${origin} ${url}`);
          assert.equal(res.headers['access-control-allow-origin'], origin);
          assert.equal(res.headers['access-control-allow-methods'], methods);
          assert.match(String(res.headers['access-control-allow-headers']), /Authorization, Content-Type/);
          assert.equal(res.headers['access-control-allow-credentials'], undefined);
          assert.match(String(res.headers.vary), /Origin/);
        }
      }
    });

    it('refuses the preflight of another origin with 403 forbidden and no CORS header', async () => {
      for (const origin of [STRANGER, 'null', 'http://192.168.1.5:5173', 'http://localhost.evil.example']) {
        const res = await preflight('/api/oauth/token', origin, 'POST');
        assert.equal(res.statusCode, 403, origin);
        assert.equal(res.json().error, 'forbidden');
        assert.match(res.json().error_description, /CORS_ORIGINS/);
        assert.equal(res.headers['access-control-allow-origin'], undefined);
      }
    });

    it('token exchange, API call and an error answer carry the origin and expose the headers a client reads', async () => {
      const minted = await mintCode(t, pub, person, { scopes: ['openid', 'account:read'] });
      const exchanged = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: DEV },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          code: minted.code,
          redirect_uri: minted.redirectUri,
          code_verifier: minted.verifier,
          client_id: pub.client_id,
        }).toString(),
      });
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      assert.equal(exchanged.headers['access-control-allow-origin'], DEV);
      const token = exchanged.json().access_token as string;
      const api = await t.app.inject({
        method: 'GET',
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${token}`, origin: LISTED },
      });
      assert.equal(api.statusCode, 200);
      assert.equal(api.headers['access-control-allow-origin'], LISTED);
      const denied = await t.app.inject({
        method: 'GET',
        url: '/api/v1/account',
        headers: { authorization: 'Bearer nope', origin: DEV },
      });
      assert.equal(denied.statusCode, 401);
      assert.equal(denied.headers['access-control-allow-origin'], DEV);
      assert.match(String(denied.headers['access-control-expose-headers']), /WWW-Authenticate/);
      assert.match(String(denied.headers['access-control-expose-headers']), /Retry-After/);
      assert.equal(denied.headers['access-control-allow-credentials'], undefined);
    });

    it('an actual request from another origin is answered without CORS headers', async () => {
      const res = await postForm(t, '/api/oauth/token', { grant_type: 'nope' }, { origin: STRANGER });
      assert.equal(res.statusCode, 400);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });

    it('the pages answer no CORS, whatever the origin', async () => {
      for (const url of ['/signin', '/account/apps', '/oauth/authorize?client_id=x']) {
        const res = await t.app.inject({ method: 'GET', url, headers: { origin: DEV } });
        assert.equal(res.headers['access-control-allow-origin'], undefined, url);
        const options = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: DEV } });
        assert.equal(options.headers['access-control-allow-origin'], undefined, url);
      }
    });

    it('a refresh with a token from tokensFor still works across origins (no cookie needed)', async () => {
      const tokens = await tokensFor(t, pub, person);
      const res = await postForm(
        t,
        '/api/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: pub.client_id },
        { origin: DEV },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['access-control-allow-origin'], DEV);
      assert.equal(res.headers['set-cookie'], undefined);
    });
  });
}
