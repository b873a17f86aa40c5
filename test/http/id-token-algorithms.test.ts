/**
 * ID tokens in the algorithm a client registered (OIDC Dynamic Registration §2
 * `id_token_signed_response_alg`): RS256 by default, ES256 or EdDSA on request. Each is verified
 * with jose against the JWKS the server publishes, as a relying party would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, type JWK, jwtVerify } from 'jose';
import { SIGNING_ALGS } from '../../src/crypto/signing-key.js';
import { findClient } from '../../src/storage/clients.repository.js';
import type { Account } from '../../src/storage/schema.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson, refresh, register, tokensFor } from '../helpers/oauth.js';

/** The JWK members each algorithm's key must carry (RFC 7518 §6.2–6.3, RFC 8037 §2). */
const KEY_SHAPE = {
  RS256: { kty: 'RSA', crv: undefined },
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
} as const;

for (const dialect of DIALECTS) {
  describe(`ID token signing algorithms [${dialect}]`, () => {
    let t: TestApp;
    let person: Account;
    before(async () => {
      t = await createTestApp(dialect);
      person = await createPerson(t);
    });
    after(() => t.close());

    const jwks = async (): Promise<JSONWebKeySet> =>
      (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as JSONWebKeySet;

    /** Verifies as a relying party does: the JWKS from the server, only the registered algorithm. */
    const verify = async (idToken: string, alg: string, audience: string) => {
      const set = await jwks();
      const { payload, protectedHeader } = await jwtVerify(idToken, createLocalJWKSet(set), {
        algorithms: [alg],
        issuer: t.config.issuer,
        audience,
        currentDate: new Date(t.ctx.now() * 1000),
      });
      const jwk = set.keys.find((k) => k.kid === protectedHeader.kid) as JWK;
      return { payload, protectedHeader, jwk };
    };

    for (const alg of SIGNING_ALGS) {
      it(`a client registered with ${alg} gets ${alg} ID tokens, by code and by refresh, that verify against the JWKS`, async () => {
        const client = await register(t, { id_token_signed_response_alg: alg });
        assert.equal(client.id_token_signed_response_alg, alg, 'echoed in the registration response');
        assert.equal((await findClient(t.ctx.db, client.client_id))?.id_token_signed_response_alg, alg);

        const tokens = await tokensFor(t, client, person, { scopes: ['openid'], nonce: 'n-1' });
        const { payload, protectedHeader, jwk } = await verify(tokens.id_token!, alg, client.client_id);
        assert.equal(protectedHeader.alg, alg);
        assert.equal(protectedHeader.kid, t.ctx.keys.signingKey(alg).kid);
        assert.equal(jwk.alg, alg);
        assert.equal(jwk.use, 'sig');
        assert.equal(jwk.kty, KEY_SHAPE[alg].kty);
        assert.equal(jwk.crv, KEY_SHAPE[alg].crv);
        assert.equal(payload.sub, person.id);
        assert.equal(payload.nonce, 'n-1');

        const refreshed = await refresh(t, client, tokens.refresh_token!);
        assert.equal(refreshed.statusCode, 200, refreshed.body);
        const again = await verify(refreshed.json().id_token, alg, client.client_id);
        assert.equal(again.protectedHeader.alg, alg);
      });
    }

    it('a client that names no algorithm is registered with RS256 and gets RS256 ID tokens', async () => {
      const client = await register(t);
      assert.equal(client.id_token_signed_response_alg, 'RS256');
      const tokens = await tokensFor(t, client, person, { scopes: ['openid'] });
      assert.equal(decodeProtectedHeader(tokens.id_token!).alg, 'RS256');
      await verify(tokens.id_token!, 'RS256', client.client_id);
    });

    it('an ES256 signature is the 64-octet R || S of RFC 7518 §3.4, not DER', async () => {
      const client = await register(t, { id_token_signed_response_alg: 'ES256' });
      const tokens = await tokensFor(t, client, person, { scopes: ['openid'] });
      assert.equal(Buffer.from(tokens.id_token!.split('.')[2]!, 'base64url').length, 64);
    });

    it('each client keeps its own algorithm: the keys of one are never used for another', async () => {
      const [es, ed] = [
        await register(t, { id_token_signed_response_alg: 'ES256' }),
        await register(t, { id_token_signed_response_alg: 'EdDSA' }),
      ];
      const esToken = (await tokensFor(t, es, person, { scopes: ['openid'] })).id_token!;
      const edToken = (await tokensFor(t, ed, person, { scopes: ['openid'] })).id_token!;
      await assert.rejects(verify(esToken, 'EdDSA', es.client_id), /not allowed/);
      await assert.rejects(verify(edToken, 'ES256', ed.client_id), /not allowed/);
      assert.notEqual(decodeProtectedHeader(esToken).kid, decodeProtectedHeader(edToken).kid);
    });
  });
}
