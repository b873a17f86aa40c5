/**
 * Clients identified by a Client ID Metadata Document (docs/decisions.md "Client ID Metadata Documents") through the real server: the
 * document is fetched from a real https server (test CA), the person signs in and consents, the
 * code is exchanged, the API called, the token refreshed, introspected and revoked — with
 * documents shaped like the real agents'. Refusals: test/http/authorize-metadata-refusals.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { setMetadataRule } from '../../src/storage/client-metadata-rules.repository.js';
import { claudeLike, vscodeLike, webTypedLike } from '../helpers/agent-documents.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import {
  authorizeViaPages,
  Browser,
  createPerson,
  type Person,
  pageText,
  pkcePair,
  readForm,
} from '../helpers/flow.js';
import { json, type MetadataServer, startMetadataServer, testCa } from '../helpers/metadata-server.js';
import { introspect, postForm, type RegisteredClient, refresh, revoke } from '../helpers/oauth.js';

const SCOPE = 'openid profile account:read courses:read';
const METRICS_TOKEN = 'metrics-secret-0123456789';

for (const dialect of DIALECTS) {
  describe(`authorization with a client metadata document [${dialect}]`, () => {
    let t: TestApp;
    let docs: MetadataServer;
    let person: Person;

    before(async () => {
      docs = await startMetadataServer();
      t = await createTestApp(dialect, {
        listen: true,
        env: { CLIENT_METADATA_CA_FILE: testCa().caFile, METRICS_TOKEN },
      });
      person = await createPerson(t.ctx.store, { now: t.clock.now() });
    });
    after(async () => {
      await t?.close();
      await docs?.close();
    });

    /** Publishes a document at `path` (its client_id is the URL); returns the URL. */
    function publish(
      path: string,
      shape: (id: string) => object,
      headers: Record<string, string> = {},
    ): string {
      const url = docs.url(path);
      docs.route(path, json(shape(url), headers));
      return url;
    }

    function authorize(clientId: string, redirectUri: string, extra: Record<string, string> = {}) {
      const pkce = pkcePair();
      const params = {
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: SCOPE,
        code_challenge: pkce.challenge,
        state: 'st',
        ...extra,
      };
      return { pkce, params };
    }

    /** Signs the person in and allows: the redirect that leaves the server. */
    const allow = (params: Record<string, string>, browser?: Browser) =>
      authorizeViaPages({
        baseUrl: t.url,
        params,
        email: person.email,
        password: person.password,
        decision: 'allow',
        browser,
      });

    const exchange = (clientId: string, code: string, redirectUri: string, verifier: string) =>
      postForm(t, '/api/oauth/token', {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });

    it('advertises client_id_metadata_document_supported in both metadata documents', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const res = await t.app.inject({ url: path });
        assert.equal(res.json().client_id_metadata_document_supported, true, path);
      }
    });

    it('Claude Code shape: sign in, consent, code, token, API call, refresh, introspection, revocation', async () => {
      const clientId = publish('/claude-code.json', claudeLike, { 'cache-control': 'max-age=3600' });
      const redirectUri = 'http://localhost:51234/callback';
      const { pkce, params } = authorize(clientId, redirectUri);
      const redirect = await allow(params);
      assert.equal(`${redirect.origin}${redirect.pathname}`, redirectUri);
      assert.equal(redirect.searchParams.get('state'), 'st');
      assert.equal(redirect.searchParams.get('iss'), t.url);
      const res = await exchange(clientId, redirect.searchParams.get('code')!, redirectUri, pkce.verifier);
      assert.equal(res.statusCode, 200, res.body);
      const tokens = res.json() as { access_token: string; refresh_token: string };

      const account = await t.app.inject({
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(account.statusCode, 200);
      assert.equal(account.json().email, person.email);

      const client: RegisteredClient = {
        client_id: clientId,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
      };
      const refreshed = await refresh(t, client, tokens.refresh_token);
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const next = refreshed.json() as { access_token: string };
      const active = await introspect(t, client, next.access_token);
      assert.equal(active.json().active, true);
      assert.equal(active.json().client_id, clientId);
      assert.equal((await revoke(t, client, next.access_token)).statusCode, 200);
      assert.equal((await introspect(t, client, next.access_token)).json().active, false);

      const row = await t.ctx.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      assert.equal(row.kind, 'metadata_document');
      assert.equal(row.name, 'Claude Code');
      assert.equal(row.token_endpoint_auth_method, 'none');
      assert.equal(row.secret_hash, null);
      assert.deepEqual(JSON.parse(row.redirect_uris), claudeLike(clientId).redirect_uris);
      assert.equal(docs.hits('/claude-code.json'), 1, 'fetched once, then served from the cache');
    });

    it('the consent page shows the document host prominently, the name, the redirect host', async () => {
      const clientId = publish('/consent-shape.json', claudeLike);
      const browser = new Browser(t.url);
      const { params } = authorize(clientId, 'http://127.0.0.1:40001/callback');
      const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
      let res = await browser.get(`/oauth/authorize?${query}`);
      let html = await res.text();
      assert.match(pageText(html), /to continue to Claude Code \(localhost\)/);
      const { readForm } = await import('../helpers/flow.js');
      const signIn = readForm(html);
      res = await browser.post(signIn.action, {
        ...signIn.fields,
        email: person.email,
        password: person.password,
      });
      html = await res.text();
      assert.equal(res.status, 200);
      assert.match(html, /<p class="domain">Identified by localhost<\/p>/);
      const text = pageText(html);
      assert.match(text, /Allow Claude Code to use your account\?/);
      assert.match(text, /Metadata document · not verified/);
      assert.match(text, new RegExp(`describes itself at ${clientId.replaceAll('.', '\\.')}`));
      assert.match(text, /you will be sent to 127\.0\.0\.1:40001 — an app running on this computer/);
    });

    it('VS Code shape: a path-less loopback entry with a port matches any port; the redirect is exactly the one named', async () => {
      const clientId = publish('/vscode.json', vscodeLike);
      for (const redirectUri of [
        'http://127.0.0.1:50123',
        'http://127.0.0.1:50124/',
        'http://localhost:50125/',
      ]) {
        const { params } = authorize(clientId, redirectUri);
        const redirect = await allow(params);
        assert.ok(redirect.searchParams.get('code'), redirectUri);
        assert.equal(`${redirect.protocol}//${redirect.host}`, redirectUri.replace(/\/$/, ''));
      }
    });

    it('VS Code shape: its https redirect is refused until the operator trusts the client_id, then usable', async () => {
      const clientId = publish('/vscode-trusted.json', vscodeLike);
      const { params } = authorize(clientId, 'https://vscode.dev/redirect');
      const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
      const refused = await t.app.inject({ url: `/oauth/authorize?${query}` });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.headers.location, undefined);
      assert.match(pageText(refused.body), /fixed HTTPS callback.*registered the app as an integration/);

      await setMetadataRule(
        t.ctx.db,
        { kind: 'client_id', target: clientId, decision: 'trust' },
        t.ctx.now(),
      );
      const browser = new Browser(t.url);
      const redirect = await allow(params, browser);
      assert.equal(`${redirect.origin}${redirect.pathname}`, 'https://vscode.dev/redirect');
      assert.ok(redirect.searchParams.get('code'));
      const consent = await browser.get(`/oauth/authorize?${query}&prompt=consent`);
      const text = pageText(await consent.text());
      assert.match(text, /Identified by localhost Registered integration/);
      assert.match(text, /you will be sent to the website vscode\.dev \./);
    });

    it('a web-typed document with [::1] entries: application_type changes nothing', async () => {
      const clientId = publish('/web-typed.json', webTypedLike);
      const { params } = authorize(clientId, 'http://[::1]:40999/auth/callback');
      const redirect = await allow(params);
      assert.equal(redirect.host, '[::1]:40999');
      assert.ok(redirect.searchParams.get('code'));
    });

    it('a document is cached within the bounds its headers ask for, then fetched again', async () => {
      const clientId = publish('/cached.json', claudeLike, { 'cache-control': 'max-age=900' });
      const { params } = authorize(clientId, 'http://127.0.0.1:40002/callback');
      const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
      for (let i = 0; i < 3; i++)
        assert.equal((await t.app.inject({ url: `/oauth/authorize?${query}` })).statusCode, 200);
      assert.equal(docs.hits('/cached.json'), 1);
      t.clock.advance(901);
      assert.equal((await t.app.inject({ url: `/oauth/authorize?${query}` })).statusCode, 200);
      assert.equal(docs.hits('/cached.json'), 2);
    });

    it('concurrent authorization requests for one new client_id cause one fetch', async () => {
      const path = '/concurrent.json';
      const url = docs.url(path);
      docs.route(path, (req, res) => setTimeout(() => json(claudeLike(url))(req, res), 150));
      const { params } = authorize(url, 'http://127.0.0.1:40003/callback');
      const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => t.app.inject({ url: `/oauth/authorize?${query}` })),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200, 200, 200, 200, 200],
      );
      assert.equal(docs.hits(path), 1);
    });

    it('a changed document updates the client (name, redirect URIs) at the next use', async () => {
      const path = '/changing.json';
      const url = publish(path, claudeLike, { 'cache-control': 'max-age=60' });
      const first = authorize(url, 'http://127.0.0.1:40004/callback');
      await allow(first.params);
      docs.route(
        path,
        json({ ...claudeLike(url), client_name: 'Claude Code 2', redirect_uris: ['http://127.0.0.1/v2'] }),
      );
      // max-age=60 is below CLIENT_METADATA_CACHE_MIN (300 s): the lower bound holds.
      t.clock.advance(61);
      const again = authorize(url, 'http://127.0.0.1:40004/v2');
      const query = new URLSearchParams({
        response_type: 'code',
        code_challenge_method: 'S256',
        ...again.params,
      });
      assert.equal((await t.app.inject({ url: `/oauth/authorize?${query}` })).statusCode, 400);
      t.clock.advance(240);
      await allow(again.params);
      const row = await t.ctx.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', url)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, 'Claude Code 2');
      assert.deepEqual(JSON.parse(row.redirect_uris), ['http://127.0.0.1/v2']);
    });

    it('a document naming id_token_signed_response_alg EdDSA gets EdDSA ID tokens, verified against the JWKS; a change to ES256 follows', async () => {
      const path = '/eddsa.json';
      const url = publish(path, (id) => ({ ...claudeLike(id), id_token_signed_response_alg: 'EdDSA' }), {
        'cache-control': 'max-age=300',
      });
      const jwks = createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`));
      const idTokenVia = async (redirectUri: string) => {
        const { pkce, params } = authorize(url, redirectUri, { nonce: 'n-doc' });
        const redirect = await allow(params);
        const res = await exchange(url, redirect.searchParams.get('code')!, redirectUri, pkce.verifier);
        assert.equal(res.statusCode, 200, res.body);
        return res.json().id_token as string;
      };
      const first = await idTokenVia('http://127.0.0.1:40006/callback');
      const verified = await jwtVerify(first, jwks, {
        algorithms: ['EdDSA'],
        issuer: t.url,
        audience: url,
        currentDate: new Date(t.clock.now() * 1000),
      });
      assert.equal(verified.protectedHeader.kid, t.ctx.keys.signingKey('EdDSA').kid);
      docs.route(path, json({ ...claudeLike(url), id_token_signed_response_alg: 'ES256' }));
      t.clock.advance(301);
      const second = await idTokenVia('http://127.0.0.1:40006/callback');
      assert.equal(decodeProtectedHeader(second).alg, 'ES256');
    });

    it('Connected apps shows the document host and the hosts the app returns to', async () => {
      const clientId = publish('/apps.json', claudeLike);
      const browser = new Browser(t.url);
      const { params } = authorize(clientId, 'http://localhost:40005/callback');
      await allow(params, browser);
      const page = await (await browser.get('/account/apps')).text();
      const section = page.slice(page.indexOf('Claude Code'));
      assert.match(pageText(section), /Identified by localhost · registered /);
      assert.match(pageText(section), /Redirects to localhost, 127\.0\.0\.1/);
      assert.match(pageText(section), /Metadata document · not verified/);
    });

    it('a metadata-document client is public: remembered consent is asked again, prompt=none answers consent_required (RFC 8252 §8.6)', async () => {
      for (const trusted of [false, true]) {
        const clientId = publish(`/never-silent-${trusted}.json`, claudeLike);
        if (trusted) {
          await setMetadataRule(
            t.ctx.db,
            { kind: 'client_id', target: clientId, decision: 'trust' },
            t.ctx.now(),
          );
        }
        const browser = new Browser(t.url);
        const { params } = authorize(clientId, 'http://127.0.0.1:40006/callback');
        assert.ok((await allow(params, browser)).searchParams.get('code'));
        const query = new URLSearchParams({
          response_type: 'code',
          code_challenge_method: 'S256',
          ...params,
        });
        const again = await browser.get(`/oauth/authorize?${query}`);
        assert.equal(again.status, 200, `trusted=${trusted}: no silent code`);
        const html = await again.text();
        assert.equal(readForm(html).fields.step, 'consent');
        assert.match(pageText(html), /You allowed this app before/);
        const none = await browser.get(`/oauth/authorize?${query}&prompt=none`);
        assert.equal(none.status, 302);
        const url = new URL(none.headers.get('location')!);
        assert.equal(url.searchParams.get('code'), null);
        assert.equal(url.searchParams.get('error'), 'consent_required', `trusted=${trusted}`);
      }
    });

    it('every fetch is audited (client_metadata.fetched) and counted in /metrics; a cached document is neither', async () => {
      const fetched = async () => {
        const res = await t.app.inject({
          url: '/metrics',
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        return Number(
          /^schoolauth_client_metadata_fetches_total\{outcome="ok"\} (\d+)$/m.exec(res.body)?.[1] ?? 0,
        );
      };
      const clientId = publish('/audited.json', claudeLike, { 'cache-control': 'max-age=900' });
      const { params } = authorize(clientId, 'http://127.0.0.1:40007/callback');
      const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params });
      const before = await fetched();
      for (let i = 0; i < 2; i++)
        assert.equal((await t.app.inject({ url: `/oauth/authorize?${query}` })).statusCode, 200);
      assert.equal(docs.hits('/audited.json'), 1);
      assert.equal(await fetched(), before + 1);
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('client_id', '=', clientId)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.kind),
        ['client_metadata.fetched'],
      );
      const detail = JSON.parse(audit[0]!.detail);
      assert.equal(detail.outcome, 'ok');
      assert.equal(detail.host, 'localhost');
      assert.equal(detail.cache_seconds, 900);
      assert.equal(audit[0]!.ip, '127.0.0.1');
    });

    it('the token endpoint answers invalid_client for a client_id URL no authorization request has used', async () => {
      const res = await postForm(t, '/api/oauth/token', {
        grant_type: 'authorization_code',
        client_id: docs.url('/never-used.json'),
        code: 'sa_ac_x',
        redirect_uri: 'http://127.0.0.1:1/callback',
        code_verifier: 'v'.repeat(43),
      });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error, 'invalid_client');
      assert.match(
        res.json().error_description,
        /no valid metadata document is known for this client_id URL/,
      );
      assert.equal(docs.hits('/never-used.json'), 0, 'the token endpoint never fetches');
    });
  });
}
