/** The resource-server guard's rules beyond the generated matrix (docs/api.md "Calling it"; RFC 6750). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { hashSecret } from '../../src/crypto/tokens.js';
import { updateAccount } from '../../src/storage/accounts.repository.js';
import { ALL_SCOPES, call, type Demo, seedDemo } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { holdTransaction } from '../helpers/hold.js';
import { mintAccessToken } from '../helpers/tokens.js';

for (const dialect of DIALECTS) {
  describe(`resource-server guard [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    before(async () => {
      t = await createTestApp(dialect);
      demo = await seedDemo(t);
    });
    after(() => t.close());

    it('a token in the query string is refused with 400, telling to use the header', async () => {
      const res = await call(t, 'GET', `/api/v1/schools/demo/courses?access_token=${demo.ownerToken}`);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_request');
      assert.match(res.json().error_description, /Authorization header/);
    });

    it('a token in a form body is refused with 400, telling to use the header', async () => {
      const token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['account:write'] });
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `access_token=${token}&name=X`,
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error_description, /Authorization header/);
    });

    it('a form-encoded body is answered 415, saying to send JSON; an upload, to send multipart', async () => {
      const token = await mintAccessToken(t, {
        accountId: demo.accountId,
        scopes: ['account:write', 'storage:write'],
      });
      const form = (url: string, method: 'PATCH' | 'POST') =>
        t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'name=Form+Name',
        });
      const res = await form('/api/v1/account', 'PATCH');
      assert.equal(res.statusCode, 415);
      assert.equal(res.json().error, 'unsupported_media_type');
      assert.match(
        res.json().error_description,
        /does not take form-encoded bodies; send the body as a JSON object with Content-Type: application\/json/,
      );
      const upload = await form('/api/v1/schools/demo/uploads', 'POST');
      assert.equal(upload.statusCode, 415);
      assert.match(upload.json().error_description, /Content-Type: multipart\/form-data/);
      const json = await call(t, 'PATCH', '/api/v1/account', { token, body: { name: 'Json Name' } });
      assert.equal(json.statusCode, 200, json.body);
    });

    it('judges the token before the body: 401 and 403 come before 400', async () => {
      const bad = await call(t, 'POST', '/api/v1/schools/demo/courses', {
        token: 'sa_at_unknown',
        body: { nonsense: true },
      });
      assert.equal(bad.statusCode, 401);
      const noScope = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['courses:read'] });
      const lacking = await call(t, 'POST', '/api/v1/schools/demo/courses', {
        token: noScope,
        body: { nonsense: true },
      });
      assert.equal(lacking.statusCode, 403);
      assert.equal(lacking.json().error, 'insufficient_scope');
      const anonymous = await call(t, 'POST', '/api/v1/schools/demo/courses', { body: { nonsense: true } });
      assert.equal(anonymous.statusCode, 403);
      assert.equal(anonymous.headers['www-authenticate'], undefined);
    });

    it('a token-less call to a private endpoint answers 403, unchallenged, pointing to the protected-resource metadata', async () => {
      const metadata = `${t.url}/.well-known/oauth-protected-resource`;
      for (const [method, url] of [
        ['GET', '/api/v1/account'],
        ['GET', '/api/v1/schools/demo/orders'],
        ['POST', '/api/v1/schools/demo/courses'],
      ] as const) {
        const res = await call(t, method, url, method === 'POST' ? { body: { title: 'x' } } : {});
        assert.equal(res.statusCode, 403, url);
        assert.equal(res.headers['www-authenticate'], undefined, 'anonymous is not challenged');
        assert.equal(res.headers.link, `<${metadata}>; rel="describedby"; type="application/json"`);
        const body = res.json();
        assert.equal(body.error, 'forbidden');
        assert.equal(body.resource_metadata, metadata);
        assert.match(body.error_description, /resource_metadata names the authorization server/);
      }
      // The link leads somewhere useful: the metadata names the authorization server.
      const linked = await t.app.inject(new URL(metadata).pathname);
      assert.deepEqual(linked.json().authorization_servers, [t.url]);
    });

    it('a presented token is never downgraded to anonymous on a public operation', async () => {
      const token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['posts:read'] });
      const res = await call(t, 'GET', '/api/v1/schools/demo/courses', { token });
      assert.equal(res.statusCode, 403);
      assert.match(String(res.headers['www-authenticate']), /scope="courses:read"/);
    });

    it('a token issued before stamps (stored by its SHA-256 alone) is still accepted, and revocable', async () => {
      const token = await mintAccessToken(t, {
        accountId: demo.accountId,
        scopes: ['account:read'],
        unstamped: true,
      });
      assert.match(token, /^sa_at_[A-Za-z0-9_-]{43}$/);
      assert.equal((await call(t, 'GET', '/api/v1/account', { token })).statusCode, 200);
      await t.ctx.db
        .updateTable('access_tokens')
        .set({ revoked_at: t.clock.now() })
        .where('token_hash', '=', hashSecret(token))
        .execute();
      assert.equal((await call(t, 'GET', '/api/v1/account', { token })).statusCode, 401);
    });

    it('a disabled account’s token is refused even if not yet revoked', async () => {
      const token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ALL_SCOPES });
      await t.ctx.db.updateTable('accounts').set({ disabled: 1 }).where('id', '=', demo.accountId).execute();
      try {
        const res = await call(t, 'GET', '/api/v1/account', { token });
        assert.equal(res.statusCode, 401);
        assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
      } finally {
        await t.ctx.db
          .updateTable('accounts')
          .set({ disabled: 0 })
          .where('id', '=', demo.accountId)
          .execute();
      }
    });

    it('a token answered a moment ago is refused on the next request once revoked, its account disabled or its grant deleted', async () => {
      const fresh = async () => {
        const token = await mintAccessToken(t, { accountId: demo.accountId, scopes: ['account:read'] });
        for (let i = 0; i < 2; i++) {
          assert.equal((await call(t, 'GET', '/api/v1/account', { token })).statusCode, 200);
        }
        return { token, hash: hashSecret(token) };
      };
      const refused = async (token: string) => {
        const res = await call(t, 'GET', '/api/v1/account', { token });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().error, 'invalid_token');
      };
      const revoked = await fresh();
      await t.ctx.db
        .updateTable('access_tokens')
        .set({ revoked_at: t.clock.now() })
        .where('token_hash', '=', revoked.hash)
        .execute();
      await refused(revoked.token);

      const disabled = await fresh();
      await updateAccount(t.ctx.db, demo.accountId, { disabled: 1 }, t.clock.now());
      try {
        await refused(disabled.token);
      } finally {
        await updateAccount(t.ctx.db, demo.accountId, { disabled: 0 }, t.clock.now());
      }
      assert.equal((await call(t, 'GET', '/api/v1/account', { token: disabled.token })).statusCode, 200);

      const deleted = await fresh();
      const { grant_id } = await t.ctx.db
        .selectFrom('access_tokens')
        .select('grant_id')
        .where('token_hash', '=', deleted.hash)
        .executeTakeFirstOrThrow();
      await t.ctx.db.deleteFrom('grants').where('id', '=', grant_id).execute();
      await refused(deleted.token);
    });

    it('a token expires exactly at its expiry time', async () => {
      const token = await mintAccessToken(t, {
        accountId: demo.accountId,
        scopes: ['account:read'],
        ttl: 30,
      });
      assert.equal((await call(t, 'GET', '/api/v1/account', { token })).statusCode, 200);
      t.clock.advance(30);
      assert.equal((await call(t, 'GET', '/api/v1/account', { token })).statusCode, 401);
    });

    it('judges tokens the same while a transaction holds the database; on SQLite the request waits its turn', async () => {
      const held = await holdTransaction(t.ctx.db, (trx) =>
        trx.selectFrom('accounts').select('id').execute(),
      );
      let settled = false;
      const answers = Promise.all([
        call(t, 'GET', '/api/v1/account', { token: demo.ownerToken }),
        call(t, 'GET', '/api/v1/account', { token: 'sa_at_unknown' }),
      ]).finally(() => {
        settled = true;
      });
      await nextTurn();
      await nextTurn();
      if (dialect === 'sqlite') assert.equal(settled, false, 'a request read inside another’s transaction');
      await held.release();
      const [known, unknown] = await answers;
      assert.equal(known.statusCode, 200);
      assert.equal(known.json().email, 'owner@demo.school');
      assert.equal(unknown.statusCode, 401);
      assert.equal(unknown.json().error, 'invalid_token');
    });

    it('unknown routes under /api/v1 answer a JSON 404', async () => {
      const res = await call(t, 'GET', '/api/v1/schools/demo/nothing-here', { token: demo.ownerToken });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'not_found');
    });
  });
}
