import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import { findClient } from '../../src/storage/clients.repository.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { errorOf } from '../helpers/oauth.js';

const LOOPBACK = 'http://127.0.0.1:8080/callback';

for (const dialect of DIALECTS) {
  describe(`dynamic client registration (RFC 7591) [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    const post = (payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });

    it('registers a public loopback client with defaults and answers 201 with the metadata', async () => {
      const res = await post({ client_name: 'My CLI', redirect_uris: [LOOPBACK] });
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json();
      assert.match(body.client_id, /^dyn_/);
      assert.equal(typeof body.client_id_issued_at, 'number');
      assert.ok(Math.abs(body.client_id_issued_at - t.ctx.now()) <= 2);
      assert.deepEqual(
        { ...body, client_id: 'x', client_id_issued_at: 0 },
        {
          client_id: 'x',
          client_id_issued_at: 0,
          client_name: 'My CLI',
          redirect_uris: [LOOPBACK],
          application_type: 'native',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          id_token_signed_response_alg: 'RS256',
        },
      );
      const row = await findClient(t.ctx.db, body.client_id);
      assert.equal(row?.kind, 'dynamic');
      assert.equal(row?.secret_hash, null);
    });

    it('registers a confidential client: the secret is returned once and stored only as a hash', async () => {
      const res = await post({ redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'client_secret_post' });
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.match(body.client_secret, /^sa_cs_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/);
      assert.equal(body.client_secret_expires_at, 0);
      assert.equal(body.token_endpoint_auth_method, 'client_secret_post');
      const row = await findClient(t.ctx.db, body.client_id);
      assert.equal(row?.secret_hash, hashSecret(body.client_secret));
      assert.ok(!JSON.stringify(row).includes(body.client_secret));
    });

    it('registers client_secret_basic as a confidential client and echoes the method (RFC 6749 §2.3.1)', async () => {
      const res = await post({
        redirect_uris: [LOOPBACK],
        token_endpoint_auth_method: 'client_secret_basic',
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(body.token_endpoint_auth_method, 'client_secret_basic');
      assert.match(body.client_secret, /^sa_cs_/);
      assert.equal(body.client_secret_expires_at, 0);
      const row = await findClient(t.ctx.db, body.client_id);
      assert.equal(row?.token_endpoint_auth_method, 'client_secret_basic');
      assert.equal(row?.secret_hash, hashSecret(body.client_secret));
    });

    it('registers loopback redirect URIs without a path (RFC 3986 §6.2.3) and echoes them as sent', async () => {
      // oidc-agent's list (without its private-use scheme entry) and git-credential-oauth's URI.
      const uris = [
        'http://localhost:4242',
        'http://localhost:8080',
        'http://127.0.0.1',
        'http://[::1]:4242',
      ];
      const res = await post({ redirect_uris: uris, application_type: 'web' });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json().redirect_uris, uris);
    });

    it('keeps the loopback URIs of a list with a private-use scheme URI beside them (oidc-agent’s default) and echoes them', async () => {
      const res = await post({
        redirect_uris: [
          'http://localhost:4242',
          'edu.kit.data.oidc-agent:/redirect',
          'http://localhost:8080',
        ],
        application_type: 'web',
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json().redirect_uris, ['http://localhost:4242', 'http://localhost:8080']);
      const row = await t.ctx.db
        .selectFrom('clients')
        .select('redirect_uris')
        .where('id', '=', res.json().client_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(row.redirect_uris), ['http://localhost:4242', 'http://localhost:8080']);
    });

    it('accepts offline_access in the registered scope (OIDC Core §11) and echoes the scope as sent', async () => {
      const res = await post({ redirect_uris: [LOOPBACK], scope: 'openid profile offline_access' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().scope, 'openid profile offline_access');
    });

    it('echoes the optional metadata it registered and ignores members it does not understand', async () => {
      const res = await post({
        redirect_uris: [LOOPBACK, 'http://[::1]/cb', 'http://localhost:3000/cb'],
        application_type: 'native',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        scope: 'openid courses:read',
        client_uri: 'https://tool.example.com',
        logo_uri: 'https://tool.example.com/logo.png',
        contacts: ['dev@example.com'],
        software_id: 'tool',
        software_version: '1.2.3',
        id_token_signed_response_alg: 'RS256',
        something_else: { nested: true },
      });
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.deepEqual(body.redirect_uris, [LOOPBACK, 'http://[::1]/cb', 'http://localhost:3000/cb']);
      assert.deepEqual(body.grant_types, ['authorization_code']);
      assert.equal(body.scope, 'openid courses:read');
      assert.equal(body.client_uri, 'https://tool.example.com');
      assert.deepEqual(body.contacts, ['dev@example.com']);
      assert.equal(body.software_version, '1.2.3');
      assert.equal(body.something_else, undefined);
      assert.equal(body.client_name, undefined);
    });

    it('records the registration in the audit trail without the secret', async () => {
      const res = await post({ redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'client_secret_post' });
      const { client_id, client_secret } = res.json();
      const row = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'client.registered')
        .where('client_id', '=', client_id)
        .executeTakeFirst();
      assert.ok(row);
      assert.ok(!row.detail.includes(client_secret));
    });

    const refused: ReadonlyArray<[name: string, body: unknown, error: string, mention?: RegExp]> = [
      [
        'a fixed HTTPS callback',
        { redirect_uris: ['https://app.example.com/cb'] },
        'invalid_redirect_uri',
        /registered integration/,
      ],
      [
        'a list mixing loopback and https',
        { redirect_uris: [LOOPBACK, 'https://app.example.com/cb'] },
        'invalid_redirect_uri',
        /https:\/\/app\.example\.com\/cb/,
      ],
      [
        'a non-loopback http host',
        { redirect_uris: ['http://example.com/cb'] },
        'invalid_redirect_uri',
        /loopback/,
      ],
      ['a custom scheme', { redirect_uris: ['myapp://cb'] }, 'invalid_redirect_uri'],
      ['a fragment', { redirect_uris: [`${LOOPBACK}#x`] }, 'invalid_redirect_uri', /fragment/],
      ['userinfo', { redirect_uris: ['http://u@127.0.0.1:8080/cb'] }, 'invalid_redirect_uri'],
      ['missing redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri', /redirect_uris/],
      ['empty redirect_uris', { redirect_uris: [] }, 'invalid_redirect_uri'],
      ['redirect_uris as a string', { redirect_uris: LOOPBACK }, 'invalid_redirect_uri'],
      ['a non-string redirect URI', { redirect_uris: [42] }, 'invalid_redirect_uri'],
      [
        '11 redirect URIs',
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`) },
        'invalid_redirect_uri',
      ],
      [
        'an unknown auth method',
        { redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'client_secret_jwt' },
        'invalid_client_metadata',
        /"none" \(public client\), "client_secret_basic" or "client_secret_post"/,
      ],
      [
        'only a private-use scheme URI (RFC 8252 §7.1)',
        { redirect_uris: ['edu.kit.data.oidc-agent:/redirect'] },
        'invalid_redirect_uri',
        /"edu\.kit\.data\.oidc-agent:\/redirect" uses the scheme/,
      ],
      [
        'a list mixing loopback, a private-use scheme and https',
        { redirect_uris: [LOOPBACK, 'com.example.app:/cb', 'https://app.example.com/cb'] },
        'invalid_redirect_uri',
        /https:\/\/app\.example\.com\/cb/,
      ],
      [
        'private_key_jwt',
        { redirect_uris: [LOOPBACK], token_endpoint_auth_method: 'private_key_jwt' },
        'invalid_client_metadata',
      ],
      [
        'client_credentials grant',
        { redirect_uris: [LOOPBACK], grant_types: ['authorization_code', 'client_credentials'] },
        'invalid_client_metadata',
        /client_credentials/,
      ],
      ['implicit grant', { redirect_uris: [LOOPBACK], grant_types: ['implicit'] }, 'invalid_client_metadata'],
      [
        'refresh_token grant alone',
        { redirect_uris: [LOOPBACK], grant_types: ['refresh_token'] },
        'invalid_client_metadata',
      ],
      [
        'response type token',
        { redirect_uris: [LOOPBACK], response_types: ['code', 'token'] },
        'invalid_client_metadata',
      ],
      [
        'a non-string client_name',
        { redirect_uris: [LOOPBACK], client_name: 7 },
        'invalid_client_metadata',
        /client_name/,
      ],
      [
        'a client_name with control characters',
        { redirect_uris: [LOOPBACK], client_name: 'a\u0007b' },
        'invalid_client_metadata',
      ],
      [
        'grant_types as a string',
        { redirect_uris: [LOOPBACK], grant_types: 'authorization_code' },
        'invalid_client_metadata',
      ],
      [
        'an unknown application_type',
        { redirect_uris: [LOOPBACK], application_type: 'desktop' },
        'invalid_client_metadata',
      ],
      [
        'an unknown scope',
        { redirect_uris: [LOOPBACK], scope: 'openid admin' },
        'invalid_client_metadata',
        /admin/,
      ],
      [
        'a javascript: client_uri',
        { redirect_uris: [LOOPBACK], client_uri: 'javascript:alert(1)' },
        'invalid_client_metadata',
      ],
      [
        'an HS256 id token alg',
        { redirect_uris: [LOOPBACK], id_token_signed_response_alg: 'HS256' },
        'invalid_client_metadata',
        /one of "RS256", "ES256", "EdDSA"/,
      ],
      [
        'an unsigned ("none") id token alg',
        { redirect_uris: [LOOPBACK], id_token_signed_response_alg: 'none' },
        'invalid_client_metadata',
        /one of "RS256", "ES256", "EdDSA"/,
      ],
      [
        'an ES384 id token alg',
        { redirect_uris: [LOOPBACK], id_token_signed_response_alg: 'ES384' },
        'invalid_client_metadata',
        /one of "RS256", "ES256", "EdDSA"/,
      ],
      ['a JSON array body', [LOOPBACK], 'invalid_client_metadata'],
      ['a body that is not JSON', '{"redirect_uris": [', 'invalid_client_metadata', /application\/json/],
    ];
    for (const [name, body, error, mention] of refused) {
      it(`refuses ${name} with 400 ${error}`, async () => {
        const res = await post(body);
        assert.deepEqual(errorOf(res), { status: 400, error });
        assert.equal(res.headers['cache-control'], 'no-store');
        const description = res.json().error_description as string;
        assert.ok(description.length > 10);
        if (mention) assert.match(description, mention);
      });
    }

    // Issue 19 §6: display strings refuse Unicode Cc, Cf and the line/paragraph separators.
    const disguises: ReadonlyArray<[field: string, value: (s: string) => unknown, path: string]> = [
      ['client_name', (s) => `Maths ${s}CLI`, 'client_name'],
      ['client_uri', (s) => `https://example.com/${s}`, 'client_uri'],
      ['logo_uri', (s) => `https://example.com/logo${s}.png`, 'logo_uri'],
      ['tos_uri', (s) => `https://example.com/${s}tos`, 'tos_uri'],
      ['policy_uri', (s) => `https://example.com/${s}policy`, 'policy_uri'],
      ['contacts', (s) => ['ok@example.com', `a${s}@example.com`], 'contacts.1'],
      ['software_id', (s) => `id-${s}`, 'software_id'],
      ['software_version', (s) => `1.0${s}`, 'software_version'],
    ];
    const characters: ReadonlyArray<[what: string, char: string, code: string]> = [
      ['a bidi override', '\u202e', 'U+202E'],
      ['a zero-width space', '\u200b', 'U+200B'],
      ['a C1 control', '\u009b', 'U+009B'],
      ['a C0 control', '\u0007', 'U+0007'],
      ['a line separator', '\u2028', 'U+2028'],
      ['a paragraph separator', '\u2029', 'U+2029'],
      ['a byte order mark', '\ufeff', 'U+FEFF'],
    ];
    for (const [field, value, path] of disguises) {
      it(`refuses control, format and separator characters in ${field} with invalid_client_metadata naming it`, async () => {
        for (const [what, char, code] of characters) {
          const res = await post({ redirect_uris: [LOOPBACK], [field]: value(char) });
          assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_client_metadata' }, what);
          const description = res.json().error_description as string;
          assert.ok(description.startsWith(`field "${path}" contains ${code}: `), description);
          assert.match(description, /control, format \(bidi override, zero-width\)/, what);
        }
      });
    }

    it('refuses a client_name of only blank or invisible characters (Hangul fillers, Braille blank) with invalid_client_metadata', async () => {
      const blanks: ReadonlyArray<[what: string, name: string]> = [
        ['U+3164', '\u3164'],
        ['U+2800', '\u2800\u2800\u2800'],
        ['U+115F', '\u115f'],
        ['U+1160', '\u1160'],
        ['U+FFA0', '\uffa0'],
        ['U+3164', '\u3000 \u3164'],
      ];
      for (const [code, name] of blanks) {
        const before = await t.ctx.db.selectFrom('clients').select('id').execute();
        const res = await post({ redirect_uris: [LOOPBACK], client_name: name });
        assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_client_metadata' }, code);
        const description = res.json().error_description as string;
        assert.ok(description.startsWith('client_name '), description);
        assert.match(description, /send a name .*, or leave client_name out$/, code);
        assert.match(description, new RegExp(`the first is U\\+${code.slice(2)}`), code);
        const afterRows = await t.ctx.db.selectFrom('clients').select('id').execute();
        assert.equal(afterRows.length, before.length, `${code}: nothing registered`);
      }
    });

    it('registers an empty or all-space client_name as no name, as before', async () => {
      for (const name of ['', '   ']) {
        const res = await post({ redirect_uris: [LOOPBACK], client_name: name });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().client_name, undefined);
      }
    });

    it('accepts a name with a visible character beside a filler', async () => {
      const res = await post({ redirect_uris: [LOOPBACK], client_name: '\u3164Maths CLI' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().client_name, '\u3164Maths CLI');
    });

    it('accepts international names unchanged', async () => {
      for (const name of ['Über-App 日本語 Ñandú', 'Приложение для школы', 'مدرسة', 'Straße 🚀 ½']) {
        const res = await post({
          redirect_uris: [LOOPBACK],
          client_name: name,
          contacts: [`${name}@example.com`],
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().client_name, name);
        const row = await t.ctx.db
          .selectFrom('clients')
          .select('name')
          .where('id', '=', res.json().client_id)
          .executeTakeFirstOrThrow();
        assert.equal(row.name, name);
      }
    });

    it('refuses a form-encoded registration with invalid_client_metadata saying to send JSON', async () => {
      const res = await post(`redirect_uris=${encodeURIComponent(LOOPBACK)}`, {
        'content-type': 'application/x-www-form-urlencoded',
      });
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_client_metadata' });
      assert.match(res.json().error_description, /Content-Type: application\/json/);
    });

    it('refuses an unknown content type with invalid_client_metadata, not a 5xx', async () => {
      for (const type of ['text/plain', 'application/xml']) {
        const res = await post('<x/>', { 'content-type': type });
        assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_client_metadata' }, type);
      }
    });

    it('stores nothing for a refused registration', async () => {
      const before = await t.ctx.db.selectFrom('clients').select('id').execute();
      await post({ redirect_uris: ['https://app.example.com/cb'] });
      const afterRows = await t.ctx.db.selectFrom('clients').select('id').execute();
      assert.equal(afterRows.length, before.length);
    });

    it('is described in /openapi.json', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const op = doc.paths['/api/oauth/register'].post;
      assert.ok(op.requestBody.content['application/json'].schema.properties.redirect_uris);
      assert.ok(op.responses['201']);
    });
  });
}
