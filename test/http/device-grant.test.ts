import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEVICE_CODE_GRANT } from '../../src/oauth/client-metadata.js';
import { normaliseUserCode, userCodeHash } from '../../src/oauth/device/user-code.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson, errorOf, postForm, type RegisteredClient, register } from '../helpers/oauth.js';

interface DeviceResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

const DEVICE_GRANTS = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];

for (const dialect of DIALECTS) {
  describe(`device authorization grant, RFC 8628 (${dialect})`, () => {
    let t: TestApp;
    let client: RegisteredClient;
    let other: RegisteredClient;
    let plain: RegisteredClient;
    let person: Account;
    before(async () => {
      t = await createTestApp(dialect);
      client = await register(t, { grant_types: DEVICE_GRANTS });
      other = await register(t, { grant_types: DEVICE_GRANTS });
      plain = await register(t);
      person = await createPerson(t);
    });
    after(() => t.close());

    const start = async (c: RegisteredClient = client, scope = 'openid account:read') => {
      const res = await postForm(t, '/api/oauth/device_authorization', { client_id: c.client_id, scope });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as DeviceResponse;
    };
    const poll = (deviceCode: string, c: RegisteredClient = client) =>
      postForm(t, '/api/oauth/token', {
        grant_type: DEVICE_CODE_GRANT,
        device_code: deviceCode,
        client_id: c.client_id,
      });
    const approve = (d: DeviceResponse) =>
      t.ctx.store.deviceAuthorizations.approve(
        userCodeHash(normaliseUserCode(d.user_code)!),
        { accountId: person.id, scopes: 'openid account:read', authTime: t.clock.now() },
        t.clock.now(),
      );

    it('discovery names the device authorization endpoint and lists the grant type', async () => {
      const meta = (await t.app.inject('/.well-known/oauth-authorization-server')).json();
      assert.equal(meta.device_authorization_endpoint, `${t.config.issuer}/api/oauth/device_authorization`);
      assert.ok(meta.grant_types_supported.includes(DEVICE_CODE_GRANT));
    });

    it('the device authorization response has a grouped 8-character user code, expires_in 600 and interval 5', async () => {
      const d = await start();
      assert.match(d.user_code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      assert.ok(d.device_code.length >= 43);
      assert.equal(d.verification_uri, `${t.config.issuer}/device`);
      assert.equal(d.verification_uri_complete, `${d.verification_uri}?user_code=${d.user_code}`);
      assert.equal(d.expires_in, 600);
      assert.equal(d.interval, 5);
    });

    it('polling answers authorization_pending, slow_down when too soon, then tokens once approved, then invalid_grant', async () => {
      t.clock.freeze();
      try {
        const d = await start();
        assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'authorization_pending' });
        assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'slow_down' });
        t.clock.advance(10);
        assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'authorization_pending' });
        assert.ok(await approve(d));
        const res = await poll(d.device_code);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.token_type, 'Bearer');
        assert.equal(body.scope, 'openid account:read');
        assert.ok(body.id_token);
        assert.ok(body.refresh_token);
        assert.equal(res.headers['cache-control'], 'no-store');
        const me = await t.app.inject({
          url: '/api/oauth/userinfo',
          headers: { authorization: `Bearer ${body.access_token}` },
        });
        assert.equal(me.json().sub, person.id);
        t.clock.advance(10);
        assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'invalid_grant' });
      } finally {
        t.clock.thaw();
      }
    });

    it('after Deny the poll answers access_denied', async () => {
      const d = await start();
      await t.ctx.store.deviceAuthorizations.deny(
        userCodeHash(normaliseUserCode(d.user_code)!),
        person.id,
        t.clock.now(),
      );
      assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'access_denied' });
    });

    it('after expires_in the poll answers expired_token', async () => {
      const d = await start();
      t.clock.advance(601);
      assert.deepEqual(errorOf(await poll(d.device_code)), { status: 400, error: 'expired_token' });
    });

    it("another client's device code answers invalid_grant", async () => {
      const d = await start();
      assert.deepEqual(errorOf(await poll(d.device_code, other)), { status: 400, error: 'invalid_grant' });
    });

    it('a client without the grant gets unauthorized_client at both endpoints', async () => {
      const res = await postForm(t, '/api/oauth/device_authorization', { client_id: plain.client_id });
      assert.deepEqual(errorOf(res), { status: 400, error: 'unauthorized_client' });
      const d = await start();
      assert.deepEqual(errorOf(await poll(d.device_code, plain)), {
        status: 400,
        error: 'unauthorized_client',
      });
    });

    it('bad input answers RFC errors, never a 5xx', async () => {
      const at = '/api/oauth/device_authorization';
      assert.equal(errorOf(await postForm(t, at, { client_id: 'nobody' })).error, 'invalid_client');
      assert.equal(errorOf(await postForm(t, at, { scope: 'openid' })).error, 'invalid_client');
      assert.equal(
        errorOf(await postForm(t, at, { client_id: client.client_id, scope: 'nope' })).error,
        'invalid_scope',
      );
      assert.equal(
        errorOf(await postForm(t, at, { client_id: client.client_id, resource: 'https://elsewhere.test' }))
          .error,
        'invalid_target',
      );
      const big = await poll('x'.repeat(10 * 1024));
      assert.equal(big.statusCode, 400);
      assert.equal(errorOf(big).error, 'invalid_request');
      assert.equal(errorOf(await poll('')).error, 'invalid_request');
      const wrong = await postForm(t, '/api/oauth/token', {
        grant_type: 'urn:ietf:params:oauth:grant-type:device',
        device_code: 'x',
        client_id: client.client_id,
      });
      assert.equal(errorOf(wrong).error, 'unsupported_grant_type');
    });

    it('self-registration refuses the device grant without loopback redirect_uris', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { client_name: 'Device only', grant_types: [DEVICE_CODE_GRANT] },
      });
      assert.equal(res.statusCode, 400);
    });
  });
}
