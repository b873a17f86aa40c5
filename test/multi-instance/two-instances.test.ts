/**
 * Issue 5: two server processes on one PostgreSQL schema behind one ISSUER. Nothing may depend on
 * which instance a request lands on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { openStorage, type Storage } from '../../src/storage/connect.js';
import { PG_URL } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { authorizeViaPages, Browser, createPerson, type Person, pkcePair } from '../helpers/flow.js';
import { type Cluster, startCluster } from './cluster.js';

const REDIRECT = 'http://127.0.0.1:9999/callback';
/** JWKS not cached: a rotated-in key signs after the reload interval and slack alone (10 s). */
const ROTATION_ENV = { JWKS_MAX_AGE: '0' };

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
}

describe('two instances on one PostgreSQL', { skip: PG_URL ? false : 'PostgreSQL not available' }, () => {
  let cluster: Cluster;
  let storage: Storage;
  let person: Person;
  let clientId: string;
  let confidentialId: string;
  let browser: Browser;
  before(async () => {
    cluster = await startCluster(ROTATION_ENV);
    storage = await openStorage(cluster.databaseUrl);
    person = await createPerson(storage.store);
    const registered = await fetch(`${cluster.a.url}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Two instances' }),
    });
    assert.equal(registered.status, 201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
    const confidential = await fetch(`${cluster.a.url}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        client_name: 'Two instances, confidential',
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    assert.equal(confidential.status, 201);
    confidentialId = ((await confidential.json()) as { client_id: string }).client_id;
    browser = new Browser(cluster.a.url);
  });
  after(async () => {
    await storage?.close();
    await cluster?.close();
  });

  /** A code from `at`'s pages (signing in and allowing when asked), with its verifier. */
  async function codeFrom(at: string): Promise<{ code: string; verifier: string }> {
    const pkce = pkcePair();
    const redirect = await authorizeViaPages({
      baseUrl: at,
      browser,
      params: {
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'openid profile',
        code_challenge: pkce.challenge,
      },
      email: person.email,
      password: person.password,
      decision: 'allow',
    });
    assert.equal(redirect.searchParams.get('iss'), cluster.issuer, 'iss is the shared issuer, not the port');
    return { code: redirect.searchParams.get('code')!, verifier: pkce.verifier };
  }

  function post(at: string, path: string, form: Record<string, string>): Promise<Response> {
    return fetch(`${at}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }

  const redeem = (at: string, c: { code: string; verifier: string }) =>
    post(at, '/api/oauth/token', {
      grant_type: 'authorization_code',
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });

  const userinfo = (at: string, token: string) =>
    fetch(`${at}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  async function tokensVia(codeAt: string, redeemAt: string): Promise<Tokens> {
    const response = await redeem(redeemAt, await codeFrom(codeAt));
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as Tokens;
  }

  it('consent given through A is remembered at B (and so is the session)', async () => {
    // A confidential client: remembered consent answers it silently (a public one is asked each time).
    const params = () => ({
      client_id: confidentialId,
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      code_challenge: pkcePair().challenge,
    });
    await authorizeViaPages({
      baseUrl: cluster.a.url,
      browser,
      params: params(),
      email: person.email,
      password: person.password,
      decision: 'allow',
    });
    // No password and no decision this time: B must ask for neither.
    const redirect = await authorizeViaPages({ baseUrl: cluster.b.url, browser, params: params() });
    assert.ok(redirect.searchParams.get('code'));
  });

  it('a code issued by A is redeemed at B; A’s refresh token is refreshed at B', async () => {
    const tokens = await tokensVia(cluster.a.url, cluster.b.url);
    assert.equal((await userinfo(cluster.a.url, tokens.access_token)).status, 200);
    const refreshed = await post(cluster.b.url, '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(refreshed.status, 200);
    const next = (await refreshed.json()) as Tokens;
    assert.notEqual(next.refresh_token, tokens.refresh_token, 'rotated');
    assert.equal((await userinfo(cluster.a.url, next.access_token)).status, 200);
  });

  it('revoke at A: B refuses at the very next request', async () => {
    const tokens = await tokensVia(cluster.b.url, cluster.a.url);
    assert.equal((await userinfo(cluster.b.url, tokens.access_token)).status, 200);
    const revoked = await post(cluster.a.url, '/api/oauth/revoke', {
      token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(revoked.status, 200);
    assert.equal(
      (await userinfo(cluster.b.url, tokens.access_token)).status,
      401,
      'the access token of the grant',
    );
    const refresh = await post(cluster.b.url, '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(refresh.status, 400);
    const introspected = await post(cluster.b.url, '/api/oauth/introspect', {
      token: tokens.access_token,
      client_id: clientId,
    });
    assert.equal(((await introspected.json()) as { active: boolean }).active, false);
  });

  it('20 concurrent redemptions of one code spread over both: exactly one succeeds, and its tokens end revoked', async () => {
    const code = await codeFrom(cluster.a.url);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => redeem(i % 2 === 0 ? cluster.a.url : cluster.b.url, code)),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 400).length, 19, statuses.join(','));
    const winner = (await responses.find((r) => r.status === 200)!.json()) as Tokens;
    // docs/decisions.md "Token endpoint": the code was replayed, so everything issued from it is revoked — the winner's too.
    for (const at of [cluster.a.url, cluster.b.url]) {
      assert.equal((await userinfo(at, winner.access_token)).status, 401);
    }
  });

  it('keys rotated while both run: both publish the new key at once (NOTIFY) and both sign with it from its stored time', async () => {
    const before = await tokensVia(cluster.a.url, cluster.a.url);
    const oldKid = decodeProtectedHeader(before.id_token!).kid!;
    const rotated = await cli(cluster.databaseUrl, ['keys', 'rotate'], '', ROTATION_ENV);
    assert.equal(rotated.code, 0, rotated.stderr);
    const newKid = /new signing key (\S+):/.exec(rotated.stdout)![1]!;
    const { activates_at: activatesAt } = await storage.db
      .selectFrom('signing_keys')
      .select('activates_at')
      .where('kid', '=', newKid)
      .executeTakeFirstOrThrow();
    // The periodic reload runs every 5 s: seeing both keys within 3 s means the notification did it.
    for (const server of [cluster.a, cluster.b]) {
      const started = Date.now();
      for (;;) {
        const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as {
          keys: Array<{ kid: string }>;
        };
        const kids = jwks.keys.map((k) => k.kid);
        if (kids.includes(newKid) && kids.includes(oldKid)) break;
        assert.ok(Date.now() - started < 3000, `${server.url} publishes ${kids.join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    // Published, not signing yet (pre-publication).
    const early = await tokensVia(cluster.b.url, cluster.b.url);
    if (Date.now() / 1000 < activatesAt - 1) assert.equal(decodeProtectedHeader(early.id_token!).kid, oldKid);
    await new Promise((r) => setTimeout(r, Math.max(0, (activatesAt + 1) * 1000 - Date.now())));
    for (const [codeAt, redeemAt] of [
      [cluster.a.url, cluster.b.url],
      [cluster.b.url, cluster.a.url],
    ] as const) {
      const tokens = await tokensVia(codeAt, redeemAt);
      assert.equal(decodeProtectedHeader(tokens.id_token!).kid, newKid, `${redeemAt} signs with the new key`);
      const jwks = createRemoteJWKSet(new URL(`${codeAt}/.well-known/jwks.json`));
      await jwtVerify(tokens.id_token!, jwks, { issuer: cluster.issuer, audience: clientId });
      // The ID token signed before the rotation still verifies, at either instance's JWKS.
      await jwtVerify(before.id_token!, jwks, { issuer: cluster.issuer, audience: clientId });
    }
  });
});
