import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NONCE_LIFETIME } from '../../src/dpop/nonces.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import { type DpopKey, dpopKey, makeProof } from '../helpers/dpop.js';
import {
  clientCredentials,
  type createPerson,
  formBody,
  mintCode,
  oauthSuite,
  type RegisteredClient,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`DPoP server nonces, DPOP_NONCES=on (RFC 9449 §8, §9) [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    let key: DpopKey;
    let htu: string;
    before(async () => {
      ({ t, pub, person } = await oauthSuite(dialect, { env: { DPOP_NONCES: 'on' } }));
      key = await dpopKey();
      htu = `${t.config.issuer}/api/oauth/token`;
    });
    after(() => t.close());

    const exchange = async (proof: string, minted?: Awaited<ReturnType<typeof mintCode>>) => {
      const code = minted ?? (await mintCode(t, pub, person, { scopes: ['openid', 'account:read'] }));
      return t.app.inject({
        method: 'POST',
        url: '/api/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof },
        payload: formBody({
          grant_type: 'authorization_code',
          code: code.code,
          redirect_uri: code.redirectUri,
          code_verifier: code.verifier,
          ...(clientCredentials(pub) as Record<string, string>),
        }),
      });
    };

    it('a token request without the nonce gets 400 use_dpop_nonce with DPoP-Nonce; with it, tokens and the nonce again', async () => {
      const minted = await mintCode(t, pub, person);
      const refused = await exchange(await makeProof(key, { htu }), minted);
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error, 'use_dpop_nonce');
      assert.match(refused.json().error_description, /requires a nonce/);
      const nonce = refused.headers['dpop-nonce'] as string;
      assert.match(nonce, /^[A-Za-z0-9_-]{32}$/);
      const accepted = await exchange(await makeProof(key, { htu, nonce }), minted);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.headers['dpop-nonce'], nonce);
      assert.equal(accepted.json().token_type, 'DPoP');
    });

    it('the protected API answers 401 use_dpop_nonce with DPoP-Nonce and a DPoP challenge (§9)', async () => {
      const nonce = (await exchange(await makeProof(key, { htu }))).headers['dpop-nonce'] as string;
      const tokens = (await exchange(await makeProof(key, { htu, nonce }))).json() as {
        access_token: string;
      };
      const call = async (withNonce: string | undefined) =>
        t.app.inject({
          method: 'GET',
          url: '/api/v1/account',
          headers: {
            authorization: `DPoP ${tokens.access_token}`,
            dpop: await makeProof(key, {
              htm: 'GET',
              htu: `${t.config.issuer}/api/v1/account`,
              accessToken: tokens.access_token,
              ...(withNonce ? { nonce: withNonce } : {}),
            }),
          },
        });
      const refused = await call(undefined);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'use_dpop_nonce', refused.body);
      assert.match(String(refused.headers['www-authenticate']), /^DPoP algs=.*error="use_dpop_nonce"/);
      assert.equal(refused.headers['dpop-nonce'], nonce);
      assert.equal((await call(nonce)).statusCode, 200);
    });

    it('an unknown or expired nonce gets use_dpop_nonce and a fresh one', async () => {
      const first = (await exchange(await makeProof(key, { htu }))).headers['dpop-nonce'] as string;
      const unknown = await exchange(await makeProof(key, { htu, nonce: 'made-up' }));
      assert.equal(unknown.json().error, 'use_dpop_nonce');
      assert.match(unknown.json().error_description, /not \(or no longer\) one of this server's/);
      // Last in this suite: the server's clock never runs backwards (src/clock.ts).
      t.clock.advance(NONCE_LIFETIME + 1);
      const stale = await exchange(await makeProof(key, { htu, nonce: first, iat: t.ctx.now() }));
      assert.equal(stale.json().error, 'use_dpop_nonce');
      const fresh = stale.headers['dpop-nonce'] as string;
      assert.notEqual(fresh, first);
      const accepted = await exchange(await makeProof(key, { htu, nonce: fresh, iat: t.ctx.now() }));
      assert.equal(accepted.statusCode, 200, accepted.body);
    });
  });
}
