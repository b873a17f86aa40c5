import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import { type DpopKey, dpopKey, dpopTokensFor, makeProof } from '../helpers/dpop.js';
import {
  type createPerson,
  introspect,
  oauthSuite,
  type RegisteredClient,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';

const ACCOUNT = '/api/v1/account';
const USERINFO = '/api/oauth/userinfo';

for (const dialect of DIALECTS) {
  describe(`DPoP on the protected API and UserInfo (RFC 9449 §7) [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    let key: DpopKey;
    let tokens: TokenResponse;
    before(async () => {
      ({ t, pub, person } = await oauthSuite(dialect));
      key = await dpopKey();
      tokens = await dpopTokensFor(t, pub, person, key, { scopes: ['openid', 'account:read'] });
      assert.equal(tokens.token_type, 'DPoP');
    });
    after(() => t.close());

    const get = async (
      url: string,
      options: { scheme?: string; token?: string; proof?: string | null; method?: string } = {},
    ) => {
      const token = options.token ?? tokens.access_token;
      const proof =
        options.proof === undefined
          ? await makeProof(key, { htm: 'GET', htu: t.config.issuer + url.split('?')[0], accessToken: token })
          : options.proof;
      return t.app.inject({
        method: (options.method ?? 'GET') as 'GET',
        url,
        headers: {
          authorization: `${options.scheme ?? 'DPoP'} ${token}`,
          ...(proof !== null ? { dpop: proof } : {}),
        },
      });
    };
    const challengeOf = (res: { headers: Record<string, unknown> }) =>
      String(res.headers['www-authenticate']);
    const assertDpopRefusal = (
      res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
      error: string,
      pattern: RegExp,
    ) => {
      assert.equal(res.statusCode, 401);
      const body = res.json() as { error: string; error_description: string };
      assert.equal(body.error, error);
      assert.match(body.error_description, pattern);
      const challenge = challengeOf(res);
      assert.match(challenge, /^DPoP algs="ES256 EdDSA Ed25519 RS256", /);
      assert.match(challenge, new RegExp(`error="${error}"`));
      assert.match(
        challenge,
        new RegExp(`resource_metadata="${t.config.issuer}/.well-known/oauth-protected-resource"`),
      );
    };

    it('answers a DPoP token with a proof of its key, method, URI and ath', async () => {
      const res = await get(ACCOUNT);
      assert.equal(res.statusCode, 200, res.body);
      const info = await get(USERINFO);
      assert.equal(info.statusCode, 200, info.body);
      assert.equal((info.json() as { sub: string }).sub, person.id);
    });

    it('refuses a DPoP-bound token sent as Bearer, with a DPoP challenge', async () => {
      for (const url of [ACCOUNT, USERINFO]) {
        assertDpopRefusal(
          await get(url, { scheme: 'Bearer', proof: null }),
          'invalid_token',
          /bound to a DPoP key; send it as "Authorization: DPoP/,
        );
      }
    });

    it('refuses a proof of another key, method, URI or token, a stale one, a replayed one, and none', async () => {
      const other = await dpopKey('EdDSA');
      const htu = t.config.issuer + ACCOUNT;
      const token = tokens.access_token;
      const cases: Array<[string | null, string, RegExp]> = [
        [
          await makeProof(other, { htm: 'GET', htu, accessToken: token }),
          'invalid_token',
          /bound to another DPoP key/,
        ],
        [
          await makeProof(key, { htm: 'POST', htu, accessToken: token }),
          'invalid_dpop_proof',
          /htm is "POST"/,
        ],
        [
          await makeProof(key, { htm: 'GET', htu: `${t.config.issuer}/api/v1/schools`, accessToken: token }),
          'invalid_dpop_proof',
          /htu/,
        ],
        [
          await makeProof(key, { htm: 'GET', htu, accessToken: 'sa_at_other' }),
          'invalid_dpop_proof',
          /ath is not the hash/,
        ],
        [await makeProof(key, { htm: 'GET', htu }), 'invalid_dpop_proof', /needs an "ath" claim/],
        [
          await makeProof(key, { htm: 'GET', htu, accessToken: token, iat: t.ctx.now() - 600 }),
          'invalid_dpop_proof',
          /iat/,
        ],
        [null, 'invalid_dpop_proof', /needs a DPoP proof/],
      ];
      for (const [proof, error, pattern] of cases)
        assertDpopRefusal(await get(ACCOUNT, { proof }), error, pattern);
      const once = await makeProof(key, { htm: 'GET', htu, accessToken: token });
      assert.equal((await get(ACCOUNT, { proof: once })).statusCode, 200);
      assertDpopRefusal(await get(ACCOUNT, { proof: once }), 'invalid_dpop_proof', /used before/);
    });

    it('refuses a Bearer token sent with the DPoP scheme; Bearer tokens keep working as Bearer', async () => {
      const bearer = await tokensFor(t, pub, person, { scopes: ['openid', 'account:read'] });
      assert.equal(bearer.token_type, 'Bearer');
      assertDpopRefusal(
        await get(ACCOUNT, { token: bearer.access_token }),
        'invalid_token',
        /not bound to a DPoP key/,
      );
      const res = await t.app.inject({
        method: 'GET',
        url: ACCOUNT,
        headers: { authorization: `Bearer ${bearer.access_token}` },
      });
      assert.equal(res.statusCode, 200);
    });

    it('a DPoP token without the scope gets 403 insufficient_scope with a DPoP challenge', async () => {
      const res = await get('/api/v1/schools/none/courses?limit=1');
      assert.equal(res.statusCode, 403, res.body);
      assert.equal((res.json() as { error: string }).error, 'insufficient_scope');
      assert.match(challengeOf(res), /^DPoP algs=.*error="insufficient_scope"/);
    });

    it('introspection shows token_type DPoP and cnf.jkt of a bound token', async () => {
      const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
      const access = (await introspect(t, pub, tokens.access_token)).json() as Record<string, unknown>;
      assert.equal(access.active, true);
      assert.equal(access.token_type, 'DPoP');
      assert.deepEqual(access.cnf, { jkt });
      const refresh = (await introspect(t, pub, tokens.refresh_token)).json() as Record<string, unknown>;
      assert.equal(refresh.token_type, 'refresh_token');
      assert.deepEqual(refresh.cnf, { jkt });
    });
  });
}
