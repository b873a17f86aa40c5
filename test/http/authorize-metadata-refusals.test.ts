/**
 * Every way a client metadata document can be refused (docs/decisions.md "Client ID Metadata Documents"), through the real server with a
 * real https server behind it: an HTML error page (400) naming the reason, never a redirect,
 * nothing written but the audit trail, the fetch counted in /metrics — and nothing cached, so a
 * fixed document works at once. Hostile servers: redirect, oversize, slow, non-JSON, wrong
 * client_id, special-use address, shared-secret auth, unknown CA.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setMetadataRule } from '../../src/storage/client-metadata-rules.repository.js';
import { claudeLike } from '../helpers/agent-documents.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { authorizeViaPages, createPerson, pageText, pkcePair } from '../helpers/flow.js';
import {
  type Handler,
  json,
  type MetadataServer,
  raw,
  slow,
  startMetadataServer,
  testCa,
  untrustedCa,
} from '../helpers/metadata-server.js';
import { postForm } from '../helpers/oauth.js';

const METRICS_TOKEN = 'metrics-secret-0123456789';
const REDIRECT = 'http://127.0.0.1:47000/callback';

interface FetchRow {
  readonly name: string;
  /** What the server at the client_id URL answers (`url` is that URL). */
  readonly serve: (url: string, docs: MetadataServer) => Handler;
  readonly reason: RegExp;
  /** The audit detail's outcome and the /metrics label. */
  readonly outcome: string;
}

const FETCH_ROWS: readonly FetchRow[] = [
  {
    name: 'a redirect',
    serve: (_url, docs) => raw(302, '', { location: docs.url('/elsewhere.json') }),
    reason: /answered 302, a redirect; redirects are not followed/,
    outcome: 'redirect',
  },
  {
    name: 'an oversize document',
    serve: (url) => json({ ...claudeLike(url), padding: 'x'.repeat(6000) }),
    reason: /is larger than 5120 bytes/,
    outcome: 'too_large',
  },
  {
    name: 'a slow server',
    serve: (url) => slow(3000, json(claudeLike(url))),
    reason: /the document was not received within 300 ms/,
    outcome: 'timeout',
  },
  {
    name: 'a non-JSON answer',
    serve: () => raw(200, '<html>hello</html>', { 'content-type': 'text/html; charset=utf-8' }),
    reason: /answered Content-Type "text\/html; charset=utf-8", not application\/json/,
    outcome: 'content_type',
  },
  {
    name: 'JSON that does not parse',
    serve: () => raw(200, '{"client_id": ', { 'content-type': 'application/json' }),
    reason: /is not a valid metadata document: it is not valid JSON/,
    outcome: 'invalid_document',
  },
  {
    name: 'HTTP 404',
    serve: () => raw(404, '{}', { 'content-type': 'application/json' }),
    reason: /answered HTTP 404, not 200/,
    outcome: 'status',
  },
  {
    name: 'another client_id in the document',
    serve: (url) => json(claudeLike(`${url}.evil`)),
    reason: /names client_id "https:\/\/localhost:\d+\/.*\.evil", not the URL it was fetched from/,
    outcome: 'invalid_document',
  },
  {
    name: 'a shared-secret auth method',
    serve: (url) => json({ ...claudeLike(url), token_endpoint_auth_method: 'client_secret_basic' }),
    reason: /shared-secret method a metadata document must not use/,
    outcome: 'invalid_document',
  },
  {
    name: 'a client_secret',
    serve: (url) => json({ ...claudeLike(url), token_endpoint_auth_method: undefined, client_secret: 'x' }),
    reason: /contains "client_secret"/,
    outcome: 'invalid_document',
  },
  {
    name: 'no client_name',
    serve: (url) => json({ ...claudeLike(url), client_name: undefined }),
    reason: /has no "client_name"/,
    outcome: 'invalid_document',
  },
  {
    name: 'no redirect_uris',
    serve: (url) => json({ ...claudeLike(url), redirect_uris: undefined }),
    reason: /has no "redirect_uris"/,
    outcome: 'invalid_document',
  },
];

/** client_id values refused before anything is fetched. */
const URL_ROWS: ReadonlyArray<[name: string, clientId: (origin: string) => string, reason: RegExp]> = [
  ['an http client_id', (o) => `${o.replace('https:', 'http:')}/a.json`, /does not use https/],
  ['no path', (o) => o, /has no path/],
  ['a fragment', (o) => `${o}/a.json#x`, /contains a fragment/],
  ['user information', (o) => o.replace('https://', 'https://me@') + '/a.json', /user information/],
  ['a dot segment', (o) => `${o}/x/../a.json`, /"\." or "\.\." path segment/],
  [
    'an upper-case host',
    (o) => `${o.replace('localhost', 'LOCALHOST')}/a.json`,
    /not in canonical form; use "https:\/\/localhost/,
  ],
  [
    'a host ending in a dot',
    (o) => `${o.replace('localhost', 'localhost.')}/a.json`,
    /names its host with a final dot; use "https:\/\/localhost:\d+\/a\.json"/,
  ],
];

for (const dialect of DIALECTS) {
  describe(`client metadata documents refused [${dialect}]`, () => {
    let t: TestApp;
    let docs: MetadataServer;

    before(async () => {
      docs = await startMetadataServer();
      t = await createTestApp(dialect, {
        env: {
          CLIENT_METADATA_CA_FILE: testCa().caFile,
          CLIENT_METADATA_READ_TIMEOUT_MS: '300',
          METRICS_TOKEN,
        },
      });
    });
    after(async () => {
      await t?.close();
      await docs?.close();
    });

    const authorizeQuery = (clientId: string, redirectUri = REDIRECT) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st',
      }).toString();

    const fetchCount = async (outcome: string): Promise<number> => {
      const res = await t.app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const line = new RegExp(
        `^schoolauth_client_metadata_fetches_total\\{outcome="${outcome}"\\} (\\d+)$`,
        'm',
      );
      return Number(line.exec(res.body)?.[1] ?? 0);
    };

    const written = async (clientId: string) => ({
      clients: (await t.ctx.db.selectFrom('clients').select('id').where('id', '=', clientId).execute())
        .length,
      consents: (
        await t.ctx.db.selectFrom('consents').select('client_id').where('client_id', '=', clientId).execute()
      ).length,
    });

    /** The refusal: an HTML page 400 naming the reason, no redirect, nothing stored. */
    async function refused(clientId: string, reason: RegExp, redirectUri = REDIRECT): Promise<string> {
      const res = await t.app.inject({ url: `/oauth/authorize?${authorizeQuery(clientId, redirectUri)}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers.location, undefined);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const text = pageText(res.body);
      assert.match(text, reason);
      assert.match(text, /Error code: invalid_(client|request)/);
      assert.deepEqual(await written(clientId), { clients: 0, consents: 0 });
      return text;
    }

    for (const row of FETCH_ROWS) {
      it(`${row.name}: an error page naming the reason, audited and counted, never cached`, async () => {
        const path = `/refused-${row.outcome}-${row.name.replaceAll(' ', '-')}.json`;
        const url = docs.url(path);
        docs.route(path, row.serve(url, docs));
        const counted = await fetchCount(row.outcome);
        const text = await refused(url, row.reason);
        assert.doesNotMatch(text, /elsewhere/, 'the redirect target is not shown');
        assert.match(text, /App could not be identified/);
        assert.equal(await fetchCount(row.outcome), counted + 1);
        const audit = await t.ctx.db
          .selectFrom('audit_events')
          .selectAll()
          .where('client_id', '=', url)
          .where('kind', '=', 'client_metadata.refused')
          .execute();
        assert.equal(audit.length, 1);
        assert.equal(JSON.parse(audit[0]!.detail).outcome, row.outcome);
        assert.equal(audit[0]!.ip, '127.0.0.1');
        // Never cached: once the publisher fixes the document it is used at once.
        docs.route(path, json(claudeLike(url)));
        const fixed = await t.app.inject({ url: `/oauth/authorize?${authorizeQuery(url)}` });
        assert.equal(fixed.statusCode, 200);
        assert.match(pageText(fixed.body), /Sign in to continue to Claude Code/);
      });
    }

    it('a special-use address (0.0.0.0, [::]) is refused before any connection', async () => {
      for (const host of ['0.0.0.0', '[::]']) {
        const url = docs.url('/private.json', host);
        docs.route('/private.json', json(claudeLike(url)));
        const counted = await fetchCount('address_refused');
        await refused(url, /could not be fetched: .* is a special-use address/);
        assert.equal(await fetchCount('address_refused'), counted + 1);
      }
      assert.equal(docs.hits('/private.json'), 0);
    });

    it('a certificate the server does not trust is refused', async () => {
      const stranger = await startMetadataServer(untrustedCa());
      try {
        const url = stranger.url('/agent.json');
        stranger.route('/agent.json', json(claudeLike(url)));
        await refused(url, /its TLS certificate was not accepted/);
      } finally {
        await stranger.close();
      }
    });

    for (const [name, clientId, reason] of URL_ROWS) {
      it(`a client_id URL with ${name} is refused without a fetch`, async () => {
        const url = clientId(docs.origin);
        const text = await refused(url, reason);
        assert.match(text, /Invalid app address/);
        const fetches = await t.ctx.db
          .selectFrom('audit_events')
          .select('id')
          .where('client_id', '=', url)
          .execute();
        assert.equal(fetches.length, 0);
      });
    }

    it('a redirect_uri that is not in the document is refused', async () => {
      const url = docs.url('/listed.json');
      docs.route('/listed.json', json(claudeLike(url)));
      for (const redirect of [
        'http://127.0.0.1:47000/other',
        'http://evil.example.com/callback',
        'http://127.0.0.1:47000/callback#x',
      ]) {
        await refused(url, /redirect_uri\) is not listed in the app's metadata document/, redirect);
      }
    });

    it('a blocked domain is refused without a fetch, and its clients lose the token endpoint', async () => {
      const url = docs.url('/to-block.json');
      docs.route('/to-block.json', json(claudeLike(url)));
      const listening = await createTestApp(dialect, {
        listen: true,
        env: { CLIENT_METADATA_CA_FILE: testCa().caFile },
      });
      try {
        const pkce = pkcePair();
        const params = {
          client_id: url,
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: pkce.challenge,
        };
        const person = await createPerson(listening.ctx.store, { now: listening.clock.now() });
        const redirect = await authorizeViaPages({
          baseUrl: listening.url,
          params,
          email: person.email,
          password: person.password,
          decision: 'allow',
        });
        const token = await postForm(listening, '/api/oauth/token', {
          grant_type: 'authorization_code',
          client_id: url,
          code: redirect.searchParams.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: pkce.verifier,
        });
        assert.equal(token.statusCode, 200);
        await setMetadataRule(
          listening.ctx.db,
          { kind: 'domain', target: 'localhost', decision: 'block' },
          listening.ctx.now(),
        );
        const again = await postForm(listening, '/api/oauth/token', {
          grant_type: 'refresh_token',
          client_id: url,
          refresh_token: token.json().refresh_token,
        });
        assert.equal(again.statusCode, 401);
        assert.equal(again.json().error, 'invalid_client');
        const hits = docs.hits('/to-block.json');
        const page = await fetch(`${listening.url}/oauth/authorize?${authorizeQuery(url)}`, {
          redirect: 'manual',
        });
        assert.equal(page.status, 400);
        assert.match(pageText(await page.text()), /App blocked .* have blocked the app identified by/);
        assert.equal(docs.hits('/to-block.json'), hits, 'a blocked client_id is never fetched');
      } finally {
        await listening.close();
      }
    });

    it('a block on a domain also refuses, at the revocation endpoint, a client stored under its final-dot spelling', async () => {
      const { saveMetadataClient } = await import('../../src/storage/clients.repository.js');
      const clientId = 'https://rt-blocked.example./client.json';
      await saveMetadataClient(t.ctx.db, {
        id: clientId,
        kind: 'metadata_document',
        name: 'Stored before final dots were refused',
        application_type: 'native',
        redirect_uris: '[]',
        token_endpoint_auth_method: 'none',
        secret_hash: null,
        grant_types: '[]',
        response_types: '[]',
        metadata: '{}',
        id_token_signed_response_alg: 'RS256',
        disabled: 0,
        created_at: t.ctx.now(),
        last_used_at: null,
      });
      const revoke = () => postForm(t, '/api/oauth/revoke', { client_id: clientId, token: 'unknown' });
      assert.equal((await revoke()).statusCode, 200);
      await setMetadataRule(
        t.ctx.db,
        { kind: 'domain', target: 'rt-blocked.example', decision: 'block' },
        t.ctx.now(),
      );
      const refused = await revoke();
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'invalid_client');
    });

    it('a client the operator disabled stays disabled whatever its document says', async () => {
      const url = docs.url('/disabled.json');
      docs.route('/disabled.json', json(claudeLike(url)));
      const { saveMetadataClient } = await import('../../src/storage/clients.repository.js');
      await saveMetadataClient(t.ctx.db, {
        id: url,
        kind: 'metadata_document',
        name: 'Claude Code',
        application_type: 'native',
        redirect_uris: '[]',
        token_endpoint_auth_method: 'none',
        secret_hash: null,
        grant_types: '[]',
        response_types: '[]',
        metadata: '{}',
        id_token_signed_response_alg: 'RS256',
        disabled: 1,
        created_at: t.ctx.now(),
        last_used_at: null,
      });
      const res = await t.app.inject({ url: `/oauth/authorize?${authorizeQuery(url)}` });
      assert.equal(res.statusCode, 400);
      assert.match(pageText(res.body), /App disabled/);
      assert.equal(docs.hits('/disabled.json'), 0);
    });
  });
}

describe('client metadata documents: issuer and configuration', () => {
  let docs: MetadataServer;
  before(async () => {
    docs = await startMetadataServer();
  });
  after(() => docs.close());

  const query = (clientId: string) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }).toString();

  it('a non-loopback issuer never fetches from loopback', async () => {
    const t = await createTestApp('sqlite', {
      env: { ISSUER: 'https://auth.example.test', CLIENT_METADATA_CA_FILE: testCa().caFile },
    });
    try {
      const url = docs.url('/loopback.json');
      docs.route('/loopback.json', json(claudeLike(url)));
      const res = await t.app.inject({ url: `/oauth/authorize?${query(url)}` });
      assert.equal(res.statusCode, 400);
      assert.match(pageText(res.body), /localhost resolves to 127\.0\.0\.1, which is a loopback address/);
      assert.equal(docs.hits('/loopback.json'), 0);
    } finally {
      await t.close();
    }
  });

  it('CLIENT_METADATA_DOCUMENTS=off: metadata says false and a client_id URL is an unknown app', async () => {
    const t = await createTestApp('sqlite', { env: { CLIENT_METADATA_DOCUMENTS: 'off' } });
    try {
      const metadata = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
      assert.equal(metadata.json().client_id_metadata_document_supported, false);
      const res = await t.app.inject({ url: `/oauth/authorize?${query(docs.url('/off.json'))}` });
      assert.equal(res.statusCode, 400);
      assert.match(pageText(res.body), /does not fetch client metadata documents.*dynamic registration/);
      assert.equal(docs.hits('/off.json'), 0);
    } finally {
      await t.close();
    }
  });

  it('RATE_LIMIT_CLIENT_METADATA fetches per minute per client IP; cached documents do not count', async () => {
    const t = await createTestApp('sqlite', {
      env: { RATE_LIMITS: 'on', RATE_LIMIT_CLIENT_METADATA: '2', CLIENT_METADATA_CA_FILE: testCa().caFile },
    });
    try {
      // Windows are aligned to the clock minute (src/rate-limit/window-counters.ts): start at one.
      t.clock.advance(60 - (t.clock.now() % 60));
      const urls = ['/r1.json', '/r2.json', '/r3.json'].map((path) => {
        const url = docs.url(path);
        docs.route(path, json(claudeLike(url)));
        return url;
      });
      assert.equal((await t.app.inject({ url: `/oauth/authorize?${query(urls[0]!)}` })).statusCode, 200);
      assert.equal((await t.app.inject({ url: `/oauth/authorize?${query(urls[1]!)}` })).statusCode, 200);
      assert.equal(
        (await t.app.inject({ url: `/oauth/authorize?${query(urls[0]!)}` })).statusCode,
        200,
        'cached',
      );
      const limited = await t.app.inject({ url: `/oauth/authorize?${query(urls[2]!)}` });
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.match(pageText(limited.body), /Too many apps were looked up from your address/);
      assert.equal(docs.hits('/r3.json'), 0);
      // Keyed by the caller's address alone: one address's fetches never spend another's allowance.
      const elsewhere = await t.app.inject({
        url: `/oauth/authorize?${query(urls[2]!)}`,
        remoteAddress: '192.0.2.90',
      });
      assert.equal(elsewhere.statusCode, 200, 'another address keeps its own allowance');
      assert.equal(docs.hits('/r3.json'), 1);
    } finally {
      await t.close();
    }
  });
});
