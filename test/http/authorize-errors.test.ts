import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { insertTestClient, pageText, pkcePair } from '../helpers/flow.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';
const EVIL = 'http://127.0.0.1:4711/evil';

interface Row {
  readonly name: string;
  /** Changes to the valid base request: a value replaces, null removes, an array repeats. */
  readonly change: Record<string, string | string[] | null>;
  readonly client?: 'unknown' | 'disabled' | 'integration';
}

const PAGE_ROWS: readonly Row[] = [
  { name: 'missing client_id', change: { client_id: null } },
  { name: 'unknown client_id', change: {}, client: 'unknown' },
  { name: 'disabled client', change: {}, client: 'disabled' },
  { name: 'missing redirect_uri', change: { redirect_uri: null } },
  { name: 'redirect_uri with another path', change: { redirect_uri: EVIL } },
  {
    name: 'redirect_uri with another loopback host',
    change: { redirect_uri: 'http://localhost:4711/callback' },
  },
  { name: 'redirect_uri with https', change: { redirect_uri: 'https://127.0.0.1:4711/callback' } },
  { name: 'redirect_uri with a fragment', change: { redirect_uri: `${REDIRECT}#x` } },
  {
    name: 'integration redirect_uri on another port',
    change: { redirect_uri: 'https://app.example.com:8443/cb' },
    client: 'integration',
  },
  { name: 'client_id sent twice', change: { client_id: ['a', 'b'] } },
  { name: 'redirect_uri sent twice', change: { redirect_uri: [REDIRECT, EVIL] } },
];

const REDIRECT_ROWS: ReadonlyArray<Row & { error: string; noState?: true }> = [
  { name: 'missing response_type', change: { response_type: null }, error: 'invalid_request' },
  { name: 'response_type=token', change: { response_type: 'token' }, error: 'unsupported_response_type' },
  {
    name: 'response_type=code id_token',
    change: { response_type: 'code id_token' },
    error: 'unsupported_response_type',
  },
  {
    name: 'missing code_challenge_method',
    change: { code_challenge_method: null },
    error: 'invalid_request',
  },
  {
    name: 'code_challenge_method=plain',
    change: { code_challenge_method: 'plain' },
    error: 'invalid_request',
  },
  { name: 'missing code_challenge', change: { code_challenge: null }, error: 'invalid_request' },
  { name: 'malformed code_challenge', change: { code_challenge: 'too-short' }, error: 'invalid_request' },
  { name: 'scope sent twice', change: { scope: ['openid', 'email'] }, error: 'invalid_request' },
  {
    name: 'code_challenge sent twice',
    change: { code_challenge: [pkcePair().challenge, pkcePair().challenge] },
    error: 'invalid_request',
  },
  {
    name: 'state sent twice (not echoed)',
    change: { state: ['a', 'b'] },
    error: 'invalid_request',
    noState: true,
  },
  { name: 'request object', change: { request: 'eyJhbGciOiJub25lIn0.e30.' }, error: 'invalid_request' },
  { name: 'request_uri', change: { request_uri: 'urn:example:req' }, error: 'invalid_request' },
  { name: 'response_mode=fragment', change: { response_mode: 'fragment' }, error: 'invalid_request' },
  { name: 'unknown scope', change: { scope: 'openid courses:delete' }, error: 'invalid_scope' },
  {
    name: 'resource of another API',
    change: { resource: 'https://api.example.com' },
    error: 'invalid_target',
  },
  { name: 'relative resource', change: { resource: '/api' }, error: 'invalid_target' },
  {
    name: 'resource with a fragment',
    change: { resource: 'http://127.0.0.1:3000#x' },
    error: 'invalid_target',
  },
  { name: 'unknown prompt', change: { prompt: 'select_account' }, error: 'invalid_request' },
  { name: 'prompt=none with login', change: { prompt: 'none login' }, error: 'invalid_request' },
  { name: 'max_age not a number', change: { max_age: 'soon' }, error: 'invalid_request' },
  { name: 'dpop_jkt not a SHA-256 thumbprint', change: { dpop_jkt: 'short' }, error: 'invalid_request' },
  { name: 'prompt=none without a session', change: { prompt: 'none' }, error: 'login_required' },
];

function query(base: Record<string, string>, change: Row['change']): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | string[] | null> = { ...base, ...change };
  for (const [name, value] of Object.entries(merged)) {
    if (value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return params.toString();
}

for (const dialect of DIALECTS) {
  describe(`authorization endpoint errors [${dialect}]`, () => {
    let t: TestApp;
    const clients: Record<string, Client> = {};
    before(async () => {
      t = await createTestApp(dialect);
      clients.ok = await insertTestClient(t.ctx.db, { redirectUris: ['http://127.0.0.1/callback'] });
      clients.disabled = await insertTestClient(t.ctx.db, { disabled: true });
      clients.integration = await insertTestClient(t.ctx.db, {
        kind: 'integration',
        redirectUris: ['https://app.example.com/cb'],
      });
    });
    after(() => t.close());

    const base = (): Record<string, string> => ({
      response_type: 'code',
      client_id: clients.ok!.id,
      redirect_uri: REDIRECT,
      scope: 'openid courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
    });

    function requestFor(row: Row): Record<string, string> {
      const b = base();
      if (row.client === 'unknown') b.client_id = 'cl_does_not_exist';
      if (row.client === 'disabled') b.client_id = clients.disabled!.id;
      if (row.client === 'integration') b.client_id = clients.integration!.id;
      return b;
    }

    for (const method of ['GET', 'POST'] as const) {
      const send = (q: string) =>
        method === 'GET'
          ? t.app.inject({ method, url: `/oauth/authorize?${q}` })
          : t.app.inject({
              method,
              url: '/oauth/authorize',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              payload: q,
            });

      for (const row of PAGE_ROWS) {
        it(`${method}: ${row.name} → HTML error page 400, no redirect`, async () => {
          const res = await send(query(requestFor(row), row.change));
          assert.equal(res.statusCode, 400);
          assert.equal(res.headers.location, undefined);
          assert.match(String(res.headers['content-type']), /^text\/html/);
          assert.equal(res.headers['x-frame-options'], 'DENY');
          assert.ok(!res.body.includes('href="http'), 'the page links nowhere outside');
          assert.ok(!res.body.includes('evil'), 'the unverified URI is not shown');
          assert.ok(pageText(res.body).length > 20);
        });
      }

      for (const row of REDIRECT_ROWS) {
        it(`${method}: ${row.name} → redirect with error=${row.error}, state and iss`, async () => {
          const res = await send(query(requestFor(row), row.change));
          assert.equal(res.statusCode, method === 'GET' ? 302 : 303);
          const location = new URL(String(res.headers.location));
          assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
          assert.equal(location.searchParams.get('error'), row.error);
          assert.ok((location.searchParams.get('error_description') ?? '').length > 10);
          assert.equal(location.searchParams.get('state'), row.noState ? null : 'st-123');
          assert.equal(location.searchParams.get('iss'), t.config.issuer);
          assert.equal(location.searchParams.get('code'), null);
          assert.equal(res.headers['cache-control'], 'no-store');
        });
      }
    }

    it('an error redirect keeps the query of the registered redirect URI', async () => {
      const client = await insertTestClient(t.ctx.db, { redirectUris: ['http://127.0.0.1/cb?app=1'] });
      const q = query(
        { ...base(), client_id: client.id, redirect_uri: 'http://127.0.0.1:5000/cb?app=1' },
        { scope: 'nope' },
      );
      const res = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${q}` });
      const location = new URL(String(res.headers.location));
      assert.equal(location.searchParams.get('app'), '1');
      assert.equal(location.searchParams.get('error'), 'invalid_scope');
    });
  });
}
