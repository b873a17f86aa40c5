/**
 * Client authentication at the token, revocation and introspection endpoints: HTTP Basic
 * (client_secret_basic, RFC 6749 §2.3.1) beside the form body (client_secret_post, none), one
 * method per request (§2.3), and the 401 challenge for header attempts (§5.2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  basicAuthorization,
  type createPerson,
  errorOf,
  type Form,
  mintCode,
  oauthSuite,
  postForm,
  type RegisteredClient,
  register,
  tokensFor,
} from '../helpers/oauth.js';

const CHALLENGE = 'Basic realm="schoolauth"';

for (const dialect of DIALECTS) {
  describe(`client authentication: HTTP Basic and the form body [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let basicClient: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
      basicClient = await register(t, { token_endpoint_auth_method: 'client_secret_basic' });
    });
    after(() => t.close());

    /** A code exchange whose client authentication is given by `form` extras and headers. */
    async function exchange(client: RegisteredClient, extra: Form, headers: Record<string, string> = {}) {
      const minted = await mintCode(t, client, person);
      return postForm(
        t,
        '/api/oauth/token',
        {
          grant_type: 'authorization_code',
          code: minted.code,
          redirect_uri: minted.redirectUri,
          code_verifier: minted.verifier,
          ...extra,
        },
        headers,
      );
    }

    it('authenticates a confidential client with HTTP Basic (RFC 6749 §2.3.1), whichever secret method it registered', async () => {
      for (const client of [conf, basicClient]) {
        const res = await exchange(
          client,
          {},
          {
            authorization: basicAuthorization(client.client_id, client.client_secret),
          },
        );
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().token_type, 'Bearer');
      }
    });

    it('authenticates a client registered with client_secret_basic by client_secret in the body too', async () => {
      const res = await exchange(basicClient, {
        client_id: basicClient.client_id,
        client_secret: basicClient.client_secret,
      });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('decodes the Basic user-id and password with form-urlencoding (percent-escapes and "+")', async () => {
      const escaped = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
      const header = `Basic ${Buffer.from(`${escaped(conf.client_id)}:${escaped(conf.client_secret!)}`).toString('base64')}`;
      assert.equal((await exchange(conf, {}, { authorization: header })).statusCode, 200);
      // "+" is a space: the secret read is not the one issued.
      const plus = `Basic ${Buffer.from(`${conf.client_id}:${conf.client_secret}+`).toString('base64')}`;
      const res = await exchange(conf, {}, { authorization: plus });
      assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' });
    });

    it('accepts the Basic scheme name in any case and the client_id repeated, equal, in the body', async () => {
      const value = basicAuthorization(conf.client_id, conf.client_secret).replace('Basic', 'bAsIc');
      const res = await exchange(conf, { client_id: conf.client_id }, { authorization: value });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('identifies a public client by Basic with an empty password (requests-oauthlib, x/oauth2)', async () => {
      const res = await exchange(pub, {}, { authorization: basicAuthorization(pub.client_id, '') });
      assert.equal(res.statusCode, 200, res.body);
      const withPassword = await exchange(pub, {}, { authorization: basicAuthorization(pub.client_id, 'x') });
      assert.deepEqual(errorOf(withPassword), { status: 401, error: 'invalid_client' });
      assert.equal(withPassword.headers['www-authenticate'], CHALLENGE);
      assert.match(withPassword.json().error_description, /public .*empty Basic password/);
    });

    it('refuses two methods in one request with 400 invalid_request (RFC 6749 §2.3)', async () => {
      const header = { authorization: basicAuthorization(conf.client_id, conf.client_secret) };
      const both = await exchange(
        conf,
        { client_id: conf.client_id, client_secret: conf.client_secret },
        header,
      );
      assert.deepEqual(errorOf(both), { status: 400, error: 'invalid_request' });
      assert.match(both.json().error_description, /use one method/);
      const other = await exchange(conf, { client_id: pub.client_id }, header);
      assert.deepEqual(errorOf(other), { status: 400, error: 'invalid_request' });
      assert.match(other.json().error_description, /client_id in the body differs/);
    });

    const malformed: ReadonlyArray<[name: string, header: string, mention: RegExp]> = [
      ['Basic without credentials', 'Basic', /not valid base64/],
      ['credentials that are not base64', 'Basic !!!!', /not valid base64/],
      ['base64 of text without ":"', `Basic ${Buffer.from('dyn_x').toString('base64')}`, /no ":"/],
      ['an empty client_id', `Basic ${Buffer.from(':secret').toString('base64')}`, /empty client_id/],
      ['a bad percent-escape', `Basic ${Buffer.from('dyn_%zz:x').toString('base64')}`, /percent-encoding/],
      ['bytes that are not UTF-8', `Basic ${Buffer.from([0xff, 0x3a, 0x41]).toString('base64')}`, /UTF-8/],
      ['another scheme', 'Bearer sa_at_x', /"Bearer" scheme/],
      ['an empty header', '', /malformed/],
    ];
    for (const [name, header, mention] of malformed) {
      it(`answers ${name} with 401 invalid_client and a Basic challenge`, async () => {
        const res = await exchange(conf, {}, { authorization: header });
        assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' });
        assert.equal(res.headers['www-authenticate'], CHALLENGE);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.match(res.json().error_description, mention);
        assert.match(res.json().error_description, /RFC 6749 §2\.3\.1/);
      });
    }

    it('answers a wrong Basic secret, an unknown client or an empty confidential password with 401 and the challenge', async () => {
      for (const header of [
        basicAuthorization(conf.client_id, `${conf.client_secret}x`),
        basicAuthorization(conf.client_id, ''),
        basicAuthorization('dyn_unknown', 'x'),
      ]) {
        const res = await exchange(conf, {}, { authorization: header });
        assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' }, header);
        assert.equal(res.headers['www-authenticate'], CHALLENGE);
      }
    });

    it('leaves the code redeemable after a failed Basic attempt', async () => {
      const minted = await mintCode(t, conf, person);
      const form = {
        grant_type: 'authorization_code',
        code: minted.code,
        redirect_uri: minted.redirectUri,
        code_verifier: minted.verifier,
      };
      const wrong = basicAuthorization(conf.client_id, 'sa_cs_wrong');
      assert.equal((await postForm(t, '/api/oauth/token', form, { authorization: wrong })).statusCode, 401);
      const right = basicAuthorization(conf.client_id, conf.client_secret);
      assert.equal((await postForm(t, '/api/oauth/token', form, { authorization: right })).statusCode, 200);
    });

    it('refreshes, introspects and revokes with HTTP Basic', async () => {
      const tokens = await tokensFor(t, basicClient, person);
      const header = { authorization: basicAuthorization(basicClient.client_id, basicClient.client_secret) };
      const refreshed = await postForm(
        t,
        '/api/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        header,
      );
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const { access_token, refresh_token } = refreshed.json();
      const active = await postForm(t, '/api/oauth/introspect', { token: access_token }, header);
      assert.equal(active.statusCode, 200, active.body);
      assert.equal(active.json().active, true);
      assert.equal(active.json().client_id, basicClient.client_id);
      const revoked = await postForm(t, '/api/oauth/revoke', { token: refresh_token }, header);
      assert.equal(revoked.statusCode, 200, revoked.body);
      const after = await postForm(t, '/api/oauth/introspect', { token: access_token }, header);
      assert.equal(after.json().active, false);
    });

    it('answers revocation and introspection with a bad Basic header by 401 and the challenge', async () => {
      for (const path of ['/api/oauth/revoke', '/api/oauth/introspect']) {
        const res = await postForm(
          t,
          path,
          { token: 'sa_at_x' },
          {
            authorization: basicAuthorization(conf.client_id, 'wrong'),
          },
        );
        assert.deepEqual(errorOf(res), { status: 401, error: 'invalid_client' }, path);
        assert.equal(res.headers['www-authenticate'], CHALLENGE);
      }
    });
  });
}
