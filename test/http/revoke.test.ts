import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  type createPerson,
  errorOf,
  introspect,
  oauthSuite,
  postForm,
  type RegisteredClient,
  refresh,
  register,
  revoke,
  tokensFor,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`revocation (RFC 7009) [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
    });
    after(() => t.close());

    const active = async (client: RegisteredClient, token: string) =>
      (await introspect(t, client, token)).json().active as boolean;

    it('revoking an access token ends it at once and leaves the refresh token', async () => {
      const tokens = await tokensFor(t, pub, person);
      const res = await revoke(t, pub, tokens.access_token);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, '');
      assert.equal(await active(pub, tokens.access_token), false);
      assert.equal(await active(pub, tokens.refresh_token), true);
      const userinfo = await t.app.inject({
        method: 'GET',
        url: '/api/oauth/userinfo',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(userinfo.statusCode, 401);
    });

    it('revoking a refresh token ends the grant: its access tokens and later refreshes', async () => {
      const tokens = await tokensFor(t, pub, person);
      const next = (await refresh(t, pub, tokens.refresh_token)).json();
      assert.equal(
        (await revoke(t, pub, next.refresh_token, { token_type_hint: 'refresh_token' })).statusCode,
        200,
      );
      for (const token of [tokens.access_token, next.access_token, next.refresh_token]) {
        assert.equal(await active(pub, token), false);
      }
      assert.deepEqual(errorOf(await refresh(t, pub, next.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('a confidential client revokes with its secret', async () => {
      const tokens = await tokensFor(t, conf, person);
      assert.equal((await revoke(t, conf, tokens.refresh_token)).statusCode, 200);
      assert.equal(await active(conf, tokens.access_token), false);
    });

    it('answers 200 for unknown tokens and for a wrong hint', async () => {
      assert.equal((await revoke(t, pub, 'sa_at_unknown')).statusCode, 200);
      const tokens = await tokensFor(t, pub, person);
      assert.equal(
        (await revoke(t, pub, tokens.access_token, { token_type_hint: 'refresh_token' })).statusCode,
        200,
      );
      assert.equal(await active(pub, tokens.access_token), false, 'the hint only orders the search');
      assert.equal((await revoke(t, pub, 'x', { token_type_hint: 'something_else' })).statusCode, 200);
    });

    it('answers 200 for another client’s token but leaves it alive', async () => {
      const tokens = await tokensFor(t, pub, person);
      const other = await register(t);
      assert.equal((await revoke(t, other, tokens.access_token)).statusCode, 200);
      assert.equal((await revoke(t, other, tokens.refresh_token)).statusCode, 200);
      assert.equal(await active(pub, tokens.access_token), true);
      assert.equal(await active(pub, tokens.refresh_token), true);
    });

    it('records the revocation in the audit trail', async () => {
      const tokens = await tokensFor(t, pub, person);
      await revoke(t, pub, tokens.refresh_token);
      const rows = await t.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'token.revoked')
        .execute();
      assert.ok(rows.some((r) => r.detail.includes('"refresh"')));
    });

    const rows: ReadonlyArray<[string, Record<string, string | string[] | undefined>, number, string]> = [
      ['missing token', { token: undefined }, 400, 'invalid_request'],
      ['repeated token', { token: ['a', 'b'] }, 400, 'invalid_request'],
      ['missing client_id', { client_id: undefined }, 401, 'invalid_client'],
      ['unknown client_id', { client_id: 'dyn_nope' }, 401, 'invalid_client'],
    ];
    for (const [name, form, status, error] of rows) {
      it(`${name} → ${status} ${error}`, async () => {
        const res = await postForm(t, '/api/oauth/revoke', {
          token: 'sa_at_x',
          client_id: pub.client_id,
          ...form,
        });
        assert.deepEqual(errorOf(res), { status, error });
      });
    }

    it('takes the form media type in any case and with parameters; refuses any other type', async () => {
      const send = (contentType: string, payload: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/oauth/revoke',
          headers: { 'content-type': contentType },
          payload,
        });
      const form = new URLSearchParams({ token: 'sa_at_x', client_id: pub.client_id }).toString();
      for (const type of [
        'Application/X-WWW-Form-Urlencoded',
        'application/x-www-form-urlencoded ; charset=UTF-8',
      ]) {
        assert.equal((await send(type, form)).statusCode, 200, type);
      }
      for (const type of ['application/json', 'application/x-www-form-urlencodedx', 'text/plain']) {
        const res = await send(type, type === 'application/json' ? JSON.stringify({ token: 'x' }) : form);
        assert.deepEqual(errorOf(res), { status: 400, error: 'invalid_request' }, type);
      }
    });

    it('a confidential client with a wrong secret → 401 invalid_client', async () => {
      const res = await revoke(t, conf, 'sa_at_x', { client_secret: 'wrong' });
      assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' });
    });
  });
}
