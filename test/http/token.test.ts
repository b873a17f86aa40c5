import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { hashSecret } from '../../src/crypto/tokens.js';
import { CLIENT_TOUCH_INTERVAL } from '../../src/storage/client-rows.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  type createPerson,
  errorOf,
  exchangeCode,
  type Form,
  mintCode,
  oauthSuite,
  postForm,
  type RegisteredClient,
  register,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`token endpoint: authorization_code grant [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
    });
    after(() => t.close());

    it('exchanges a code for opaque prefixed tokens, stored only as hashes, with no-store', async () => {
      const minted = await mintCode(t, pub, person);
      const res = await exchangeCode(t, pub, minted);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers.pragma, 'no-cache');
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'access_token',
        'expires_in',
        'id_token',
        'refresh_token',
        'scope',
        'token_type',
      ]);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, t.config.accessTokenTtl);
      assert.equal(body.scope, 'openid profile email courses:read');
      assert.match(body.access_token, /^sa_at_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/);
      assert.match(body.refresh_token, /^sa_rt_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/);
      const at = await t.ctx.db
        .selectFrom('access_tokens')
        .selectAll()
        .where('token_hash', '=', hashSecret(body.access_token))
        .executeTakeFirst();
      assert.equal(at?.resource, t.config.issuer);
      assert.equal(at?.grant_id, minted.grantId);
      const dump = JSON.stringify(await t.ctx.db.selectFrom('access_tokens').selectAll().execute());
      assert.ok(!dump.includes(body.access_token));
    });

    it('issues an RS256 ID token with iss sub aud exp iat auth_time nonce azp and the key id', async () => {
      const minted = await mintCode(t, pub, person, { nonce: 'nonce-123' });
      const body = (await exchangeCode(t, pub, minted)).json();
      const header = decodeProtectedHeader(body.id_token);
      assert.equal(header.alg, 'RS256');
      assert.equal(header.kid, t.ctx.keys.signingKey().kid);
      const jwks = createLocalJWKSet(JSON.parse(t.ctx.keys.jwksBody().toString()));
      const { payload } = await jwtVerify(body.id_token, jwks, {
        issuer: t.config.issuer,
        audience: pub.client_id,
        currentDate: new Date(t.ctx.now() * 1000),
      });
      assert.equal(payload.sub, person.id);
      assert.equal(payload.nonce, 'nonce-123');
      assert.equal(payload.azp, pub.client_id);
      assert.equal(typeof payload.auth_time, 'number');
      assert.equal(payload.exp, (payload.iat as number) + t.config.idTokenTtl);
    });

    it('omits the ID token when openid was not granted, and nonce when none was sent', async () => {
      const body = (
        await exchangeCode(t, pub, await mintCode(t, pub, person, { scopes: ['courses:read'] }))
      ).json();
      assert.equal(body.id_token, undefined);
      assert.equal(body.scope, 'courses:read');
      const withoutNonce = (
        await exchangeCode(t, pub, await mintCode(t, pub, person, { nonce: null }))
      ).json();
      const payload = JSON.parse(Buffer.from(withoutNonce.id_token.split('.')[1], 'base64url').toString());
      assert.equal(payload.nonce, undefined);
    });

    it('authenticates a confidential client by client_secret in the body', async () => {
      const res = await exchangeCode(t, conf, await mintCode(t, conf, person));
      assert.equal(res.statusCode, 200, res.body);
    });

    it('binds the token to a resource given at authorization and accepts a repeat of it', async () => {
      const minted = await mintCode(t, pub, person);
      const res = await exchangeCode(t, pub, minted, { resource: `${t.config.issuer}/` });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('touches client and grant last use', async () => {
      t.clock.advance(CLIENT_TOUCH_INTERVAL);
      const minted = await mintCode(t, pub, person);
      t.clock.advance(5);
      const start = t.ctx.now();
      await exchangeCode(t, pub, minted);
      const end = t.ctx.now();
      const client = await t.ctx.db
        .selectFrom('clients')
        .selectAll()
        .where('id', '=', pub.client_id)
        .executeTakeFirstOrThrow();
      const grant = await t.ctx.db
        .selectFrom('grants')
        .selectAll()
        .where('id', '=', minted.grantId)
        .executeTakeFirstOrThrow();
      for (const usedAt of [client.last_used_at, grant.last_used_at]) {
        assert.ok(usedAt !== null && usedAt >= start && usedAt <= end, `${usedAt} within [${start}, ${end}]`);
      }
    });

    it('records token issuance in the audit trail', async () => {
      const minted = await mintCode(t, pub, person);
      await exchangeCode(t, pub, minted);
      const rows = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'token.issued')
        .execute();
      assert.ok(rows.some((r) => r.detail.includes(minted.grantId)));
    });

    it('refuses a second redemption with invalid_grant and revokes the tokens of the first', async () => {
      const minted = await mintCode(t, pub, person);
      const first = (await exchangeCode(t, pub, minted)).json();
      const second = await exchangeCode(t, pub, minted);
      assert.deepEqual(errorOf(second), { status: 400, error: 'invalid_grant' });
      for (const [table, token] of [
        ['access_tokens', first.access_token],
        ['refresh_tokens', first.refresh_token],
      ] as const) {
        const row = await t.ctx.db
          .selectFrom(table)
          .selectAll()
          .where('token_hash', '=', hashSecret(token))
          .executeTakeFirstOrThrow();
        assert.notEqual(row.revoked_at, null, `${table} revoked`);
      }
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'code.replayed')
        .execute();
      assert.ok(audit.some((r) => r.detail.includes(minted.grantId)));
    });

    it('leaves a code redeemable after an attempt with a wrong verifier', async () => {
      const minted = await mintCode(t, pub, person);
      const wrong = await exchangeCode(t, pub, minted, { code_verifier: 'x'.repeat(43) });
      assert.deepEqual(errorOf(wrong), { status: 400, error: 'invalid_grant' });
      assert.equal((await exchangeCode(t, pub, minted)).statusCode, 200);
    });

    it('says what is wrong with a verifier RFC 7636 §4.1 forbids (git-credential-oauth 0.4.2), and keeps the code', async () => {
      const minted = await mintCode(t, pub, person);
      // Padded standard base64 of 32 bytes, as git-credential-oauth 0.4.2 sends it.
      const padded = `${'ab+/'.repeat(10)}xyz=`;
      const res = await exchangeCode(t, pub, minted, { code_verifier: padded });
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_grant' });
      const description = res.json().error_description as string;
      assert.match(
        description,
        /code_verifier contains characters a verifier may not have \("\+", "\/", "="\)/,
      );
      assert.match(description, /RFC 7636 §4\.1 allows 43 to 128 characters of A-Z a-z 0-9 - \. _ ~/);
      assert.doesNotMatch(description, /does not match/);
      const short = await exchangeCode(t, pub, minted, { code_verifier: 'abc' });
      assert.match(short.json().error_description, /code_verifier is 3 characters long; RFC 7636 §4\.1/);
      assert.equal((await exchangeCode(t, pub, minted)).statusCode, 200, 'the code is still redeemable');
    });

    it('refuses an expired code', async () => {
      const minted = await mintCode(t, pub, person);
      t.clock.advance(t.config.codeTtl);
      assert.deepEqual(errorOf(await exchangeCode(t, pub, minted)), { status: 400, error: 'invalid_grant' });
    });

    it('accepts a code just before it expires', async () => {
      const minted = await mintCode(t, pub, person);
      t.clock.advance(t.config.codeTtl - 2);
      assert.equal((await exchangeCode(t, pub, minted)).statusCode, 200);
    });

    it('refuses a code whose grant was revoked in the meantime', async () => {
      const minted = await mintCode(t, pub, person);
      await t.ctx.db
        .updateTable('grants')
        .set({ revoked_at: t.ctx.now() })
        .where('id', '=', minted.grantId)
        .execute();
      assert.deepEqual(errorOf(await exchangeCode(t, pub, minted)), { status: 400, error: 'invalid_grant' });
    });

    // Error rows of docs/decisions.md "Token endpoint" and RFC 6749 §5.2 for this grant: [name, form changes, status, error].
    type Row = [name: string, change: (m: Form) => Form, status: number, error: string];
    const rows: Row[] = [
      ['missing code_verifier', (f) => ({ ...f, code_verifier: undefined }), 400, 'invalid_request'],
      [
        'empty code_verifier (treated as missing)',
        (f) => ({ ...f, code_verifier: '' }),
        400,
        'invalid_request',
      ],
      ['wrong code_verifier', (f) => ({ ...f, code_verifier: 'A'.repeat(43) }), 400, 'invalid_grant'],
      ['malformed code_verifier', (f) => ({ ...f, code_verifier: 'short' }), 400, 'invalid_grant'],
      ['missing code', (f) => ({ ...f, code: undefined }), 400, 'invalid_request'],
      ['unknown code', (f) => ({ ...f, code: 'sa_ac_nope' }), 400, 'invalid_grant'],
      ['missing redirect_uri', (f) => ({ ...f, redirect_uri: undefined }), 400, 'invalid_request'],
      [
        'different redirect_uri',
        (f) => ({ ...f, redirect_uri: 'http://127.0.0.1:8765/other' }),
        400,
        'invalid_grant',
      ],
      [
        'redirect_uri on another port',
        (f) => ({ ...f, redirect_uri: 'http://127.0.0.1:9999/callback' }),
        400,
        'invalid_grant',
      ],
      ['missing grant_type', (f) => ({ ...f, grant_type: undefined }), 400, 'invalid_request'],
      [
        'unsupported grant_type',
        (f) => ({ ...f, grant_type: 'client_credentials' }),
        400,
        'unsupported_grant_type',
      ],
      ['password grant', (f) => ({ ...f, grant_type: 'password' }), 400, 'unsupported_grant_type'],
      [
        'repeated code',
        (f) => ({ ...f, code: [f.code as string, f.code as string] }),
        400,
        'invalid_request',
      ],
      [
        'repeated client_id',
        (f) => ({ ...f, client_id: [f.client_id as string, f.client_id as string] }),
        400,
        'invalid_request',
      ],
      ['missing client_id', (f) => ({ ...f, client_id: undefined }), 401, 'invalid_client'],
      ['unknown client_id', (f) => ({ ...f, client_id: 'dyn_unknown' }), 401, 'invalid_client'],
      ['client_id with a NUL character', (f) => ({ ...f, client_id: 'dyn_\u0000x' }), 401, 'invalid_client'],
      [
        'a secret sent by a public client',
        (f) => ({ ...f, client_secret: 'sa_cs_x' }),
        401,
        'invalid_client',
      ],
      [
        'a resource other than this API',
        (f) => ({ ...f, resource: 'https://api.example.com' }),
        400,
        'invalid_target',
      ],
      [
        'a resource with a fragment',
        (f) => ({ ...f, resource: `${t.config.issuer}#x` }),
        400,
        'invalid_target',
      ],
      ['a relative resource', (f) => ({ ...f, resource: '/api' }), 400, 'invalid_target'],
      [
        'two different resources',
        (f) => ({ ...f, resource: [t.config.issuer, 'https://x.example'] }),
        400,
        'invalid_target',
      ],
    ];
    for (const [name, change, status, error] of rows) {
      it(`${name} → ${status} ${error}`, async () => {
        const minted = await mintCode(t, pub, person);
        const form: Form = {
          grant_type: 'authorization_code',
          code: minted.code,
          redirect_uri: minted.redirectUri,
          code_verifier: minted.verifier,
          client_id: pub.client_id,
        };
        const res = await postForm(t, '/api/oauth/token', change(form));
        assert.deepEqual(errorOf(res), { status, error });
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.ok(String(res.json().error_description).length > 10);
        if (status === 401) assert.equal(res.headers['www-authenticate'], undefined);
      });
    }

    it('refuses a code issued to another client with invalid_grant', async () => {
      const other = await register(t);
      const minted = await mintCode(t, other, person);
      const res = await exchangeCode(t, pub, minted);
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_grant' });
      assert.equal(
        (await exchangeCode(t, other, minted)).statusCode,
        200,
        'the rightful client can still redeem',
      );
    });

    it('refuses a confidential client without or with a wrong secret: 401 invalid_client', async () => {
      for (const secret of [undefined, 'sa_cs_wrong', `${conf.client_secret}x`]) {
        const minted = await mintCode(t, conf, person);
        const res = await exchangeCode(t, conf, minted, { client_secret: secret });
        assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' });
      }
    });

    it('refuses a JSON body with invalid_request saying to send a form', async () => {
      const minted = await mintCode(t, pub, person);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/token',
        payload: { grant_type: 'authorization_code', code: minted.code, client_id: pub.client_id },
      });
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_request' });
      assert.match(res.json().error_description, /x-www-form-urlencoded/);
    });

    it('refuses an unknown content type with invalid_request, never a 5xx', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/token',
        headers: { 'content-type': 'application/xml' },
        payload: '<x/>',
      });
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_request' });
    });

    it('ignores unknown parameters (RFC 6749 §3.2)', async () => {
      const minted = await mintCode(t, pub, person);
      assert.equal((await exchangeCode(t, pub, minted, { foo: 'bar', scope: 'openid' })).statusCode, 200);
    });

    it('refuses a client registered without the refresh_token grant only for refresh, and issues no refresh token', async () => {
      const codeOnly = await register(t, { grant_types: ['authorization_code'] });
      const body = (await exchangeCode(t, codeOnly, await mintCode(t, codeOnly, person))).json();
      assert.equal(body.refresh_token, undefined);
      const res = await postForm(t, '/api/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: 'sa_rt_x',
        client_id: codeOnly.client_id,
      });
      assert.deepEqual(errorOf(res), { status: 400, error: 'unauthorized_client' });
    });
  });
}
