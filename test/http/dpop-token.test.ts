import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import { hashSecret } from '../../src/crypto/tokens.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import { type DpopKey, dpopKey, makeProof, unsignedJws } from '../helpers/dpop.js';
import {
  clientCredentials,
  type createPerson,
  exchangeCode,
  formBody,
  mintCode,
  oauthSuite,
  type RegisteredClient,
  register,
  type TokenResponse,
} from '../helpers/oauth.js';

const TOKEN = '/api/oauth/token';

for (const dialect of DIALECTS) {
  describe(`DPoP at the token endpoint (RFC 9449 §5) [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    let key: DpopKey;
    let jkt: string;
    let htu: string;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
      key = await dpopKey();
      jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
      htu = t.config.issuer + TOKEN;
    });
    after(() => t.close());

    const post = (form: Record<string, string | undefined>, dpop?: string | string[]) =>
      t.app.inject({
        method: 'POST',
        url: TOKEN,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(dpop !== undefined ? { dpop } : {}),
        },
        payload: formBody(form),
      });
    const codeForm = (client: RegisteredClient, minted: Awaited<ReturnType<typeof mintCode>>) => ({
      grant_type: 'authorization_code',
      code: minted.code,
      redirect_uri: minted.redirectUri,
      code_verifier: minted.verifier,
      ...(clientCredentials(client) as Record<string, string | undefined>),
    });
    const refreshForm = (client: RegisteredClient, token: string) => ({
      grant_type: 'refresh_token',
      refresh_token: token,
      ...(clientCredentials(client) as Record<string, string | undefined>),
    });
    const proof = (k: DpopKey = key, extra: Parameters<typeof makeProof>[1] | object = {}) =>
      makeProof(k, { htu, ...extra });
    const jktOf = async (table: 'access_tokens' | 'refresh_tokens', token: string) =>
      (
        await t.ctx.db
          .selectFrom(table)
          .select('jkt')
          .where('token_hash', '=', hashSecret(token))
          .executeTakeFirstOrThrow()
      ).jkt;
    const dpopTokens = async (client: RegisteredClient, k: DpopKey = key): Promise<TokenResponse> => {
      const res = await post(codeForm(client, await mintCode(t, client, person)), await proof(k));
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as TokenResponse;
    };
    const refusal = (res: { statusCode: number; json(): unknown }) => {
      const body = res.json() as { error: string; error_description: string };
      return { status: res.statusCode, error: body.error, description: body.error_description };
    };

    it('a code exchange with a proof answers token_type DPoP and binds the access and refresh tokens of a public client', async () => {
      const tokens = await dpopTokens(pub);
      assert.equal(tokens.token_type, 'DPoP');
      assert.equal(await jktOf('access_tokens', tokens.access_token), jkt);
      assert.equal(await jktOf('refresh_tokens', tokens.refresh_token), jkt);
    });

    it("a confidential client's refresh token stays bound to the client; its access token to the key", async () => {
      const tokens = await dpopTokens(conf);
      assert.equal(tokens.token_type, 'DPoP');
      assert.equal(await jktOf('access_tokens', tokens.access_token), jkt);
      assert.equal(await jktOf('refresh_tokens', tokens.refresh_token), null);
    });

    it('without a proof the exchange is Bearer exactly as before', async () => {
      const res = await exchangeCode(t, pub, await mintCode(t, pub, person));
      const tokens = res.json() as TokenResponse;
      assert.equal(tokens.token_type, 'Bearer');
      assert.equal(await jktOf('access_tokens', tokens.access_token), null);
      assert.equal(await jktOf('refresh_tokens', tokens.refresh_token), null);
    });

    it('refuses bad proofs with 400 invalid_dpop_proof saying what was wrong, and leaves the code unspent', async () => {
      const minted = await mintCode(t, pub, person);
      const form = codeForm(pub, minted);
      const cases: Array<[string | string[], RegExp]> = [
        ['x'.repeat(10 * 1024), /more than 4096/],
        [unsignedJws('{"alg":'), /header is not base64url-encoded JSON/],
        [unsignedJws({ typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk }), /alg "none" is not accepted/],
        [unsignedJws({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.publicJwk }), /alg "HS256" is not accepted/],
        [await proof(key, { header: { jwk: key.privateJwk } }), /private member "d"/],
        [[await proof(), await proof()], /more than one DPoP header/],
        [await proof(key, { htu: `${t.config.issuer}/api/oauth/revoke` }), /htu/],
        [await proof(key, { htm: 'GET' }), /htm/],
        [await proof(key, { iat: t.ctx.now() - 3600 }), /iat/],
      ];
      for (const [value, pattern] of cases) {
        const res = await post(form, value);
        const answer = refusal(res);
        assert.equal(answer.status, 400, res.body);
        assert.equal(answer.error, 'invalid_dpop_proof');
        assert.match(answer.description, pattern);
      }
      const res = await post(form, await proof());
      assert.equal(res.statusCode, 200, res.body);
    });

    it('refuses a proof used before (its jti is recorded), and so its second use', async () => {
      const once = await proof();
      assert.equal((await post(codeForm(pub, await mintCode(t, pub, person)), once)).statusCode, 200);
      const again = refusal(await post(codeForm(pub, await mintCode(t, pub, person)), once));
      assert.deepEqual([again.status, again.error], [400, 'invalid_dpop_proof']);
      assert.match(again.description, /used before/);
    });

    it("a public client's bound refresh token: without a proof, or with another key's, refused and nothing changes", async () => {
      const tokens = await dpopTokens(pub);
      const other = await dpopKey('EdDSA');
      for (const dpop of [undefined, await proof(other)]) {
        const answer = refusal(await post(refreshForm(pub, tokens.refresh_token), dpop));
        assert.deepEqual([answer.status, answer.error], [400, 'invalid_dpop_proof']);
        assert.match(answer.description, /refresh token is bound to (a|another) DPoP key/);
      }
      const res = await post(refreshForm(pub, tokens.refresh_token), await proof());
      assert.equal(res.statusCode, 200, res.body);
      const next = res.json() as TokenResponse;
      assert.equal(next.token_type, 'DPoP');
      assert.equal(await jktOf('refresh_tokens', next.refresh_token), jkt);
      assert.equal(await jktOf('access_tokens', next.access_token), jkt);
      // The grace window works per key: the repeat with the key answers the same pair.
      const repeat = (
        await post(refreshForm(pub, tokens.refresh_token), await proof())
      ).json() as TokenResponse;
      assert.equal(repeat.refresh_token, next.refresh_token);
      assert.equal(repeat.token_type, 'DPoP');
      // Another key's repeat of the rotated token is refused, not taken as reuse: the family lives.
      assert.equal((await post(refreshForm(pub, tokens.refresh_token), await proof(other))).statusCode, 400);
      assert.equal((await post(refreshForm(pub, next.refresh_token), await proof())).statusCode, 200);
    });

    it('a code requested with dpop_jkt is redeemed only with a proof of that key (RFC 9449 §10)', async () => {
      const minted = await mintCode(t, pub, person, { dpopJkt: jkt });
      const other = await dpopKey();
      for (const dpop of [undefined, await proof(other)]) {
        const answer = refusal(await post(codeForm(pub, minted), dpop));
        assert.deepEqual([answer.status, answer.error], [400, 'invalid_dpop_proof']);
        assert.match(answer.description, /dpop_jkt/);
      }
      const res = await post(codeForm(pub, minted), await proof());
      assert.equal(res.statusCode, 200, res.body);
    });

    it('a client registered with dpop_bound_access_tokens never gets a Bearer token', async () => {
      const bound = await register(t, { dpop_bound_access_tokens: true });
      assert.equal(bound.dpop_bound_access_tokens, true);
      const answer = refusal(await post(codeForm(bound, await mintCode(t, bound, person))));
      assert.deepEqual([answer.status, answer.error], [400, 'invalid_dpop_proof']);
      assert.match(answer.description, /dpop_bound_access_tokens/);
      assert.equal((await dpopTokens(bound)).token_type, 'DPoP');
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { redirect_uris: [pub.redirect_uris[0]], dpop_bound_access_tokens: 'yes' },
      });
      assert.equal(refused.statusCode, 400);
      assert.equal((refused.json() as { error: string }).error, 'invalid_client_metadata');
    });
  });
}
