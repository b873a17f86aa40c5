import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  createPerson,
  errorOf,
  introspect,
  oauthSuite,
  postForm,
  type RegisteredClient,
  refresh,
  register,
  tokensFor,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`introspection (RFC 7662) [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
    });
    after(() => t.close());

    it('describes a live access token: scope, client, sub, aud, iss, exp, iat, token_type Bearer', async () => {
      const start = t.ctx.now();
      const tokens = await tokensFor(t, pub, person, { scopes: ['openid', 'courses:read'] });
      const res = await introspect(t, pub, tokens.access_token);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = res.json();
      assert.ok(body.iat >= start && body.iat <= t.ctx.now());
      assert.deepEqual(body, {
        active: true,
        scope: 'openid courses:read',
        client_id: pub.client_id,
        sub: person.id,
        aud: t.config.issuer,
        iss: t.config.issuer,
        exp: body.iat + t.config.accessTokenTtl,
        iat: body.iat,
        token_type: 'Bearer',
      });
    });

    it('describes a refresh token with token_type refresh_token', async () => {
      const tokens = await tokensFor(t, pub, person);
      const body = (
        await introspect(t, pub, tokens.refresh_token, { token_type_hint: 'refresh_token' })
      ).json();
      assert.equal(body.active, true);
      assert.equal(body.token_type, 'refresh_token');
      assert.equal(body.aud, t.config.issuer);
      assert.equal(body.exp, body.iat + t.config.refreshTokenTtl);
    });

    it('shows the RFC 8707 resource binding as aud (canonical issuer)', async () => {
      const tokens = await tokensFor(t, conf, person, { resource: t.config.issuer });
      const body = (await introspect(t, conf, tokens.access_token)).json();
      assert.equal(body.aud, t.config.issuer);
    });

    it('a confidential client introspects with its secret, and not without it', async () => {
      const tokens = await tokensFor(t, conf, person);
      assert.equal((await introspect(t, conf, tokens.access_token)).json().active, true);
      assert.deepEqual(
        errorOf(await introspect(t, conf, tokens.access_token, { client_secret: undefined })),
        {
          status: 401,
          error: 'invalid_client',
        },
      );
    });

    it('answers {"active": false} and nothing else for unknown, foreign, expired and rotated tokens', async () => {
      const tokens = await tokensFor(t, pub, person);
      const other = await register(t);
      const cases: Array<[RegisteredClient, string]> = [
        [pub, 'sa_at_unknown'],
        [pub, 'garbage'],
        [other, tokens.access_token],
        [other, tokens.refresh_token],
      ];
      for (const [client, token] of cases)
        assert.deepEqual((await introspect(t, client, token)).json(), { active: false });
      await refresh(t, pub, tokens.refresh_token);
      assert.deepEqual((await introspect(t, pub, tokens.refresh_token)).json(), { active: false });
      t.clock.advance(t.config.accessTokenTtl);
      assert.deepEqual((await introspect(t, pub, tokens.access_token)).json(), { active: false });
    });

    it('a disabled account’s tokens are inactive', async () => {
      const someone = await createPerson(t);
      const tokens = await tokensFor(t, pub, someone);
      await t.ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', someone.id).execute();
      assert.deepEqual((await introspect(t, pub, tokens.access_token)).json(), { active: false });
    });

    const rows: ReadonlyArray<[string, Record<string, string | string[] | undefined>, number, string]> = [
      ['missing token', { token: undefined }, 400, 'invalid_request'],
      ['repeated token', { token: ['a', 'b'] }, 400, 'invalid_request'],
      ['missing client_id', { client_id: undefined }, 401, 'invalid_client'],
      ['unknown client_id', { client_id: 'dyn_nope' }, 401, 'invalid_client'],
      ['a secret from a public client', { client_secret: 'x' }, 401, 'invalid_client'],
    ];
    for (const [name, form, status, error] of rows) {
      it(`${name} → ${status} ${error}`, async () => {
        const res = await postForm(t, '/api/oauth/introspect', {
          token: 'sa_at_x',
          client_id: pub.client_id,
          ...form,
        });
        assert.deepEqual(errorOf(res), { status, error });
      });
    }

    it('a JSON body → 400 invalid_request', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/introspect',
        payload: { token: 'x', client_id: pub.client_id },
      });
      assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_request' });
    });
  });
}
