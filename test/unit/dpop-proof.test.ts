import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import { normaliseHtu, requestHtu } from '../../src/dpop/htu.js';
import { DpopProblem, dpopHeader, MAX_PROOF_LENGTH, verifyProof } from '../../src/dpop/proof.js';
import { dpopKey, makeProof, unsignedJws } from '../helpers/dpop.js';

const HTU = 'https://auth.example/api/oauth/token';
const now = () => Math.floor(Date.now() / 1000);
const expect = (extra: Record<string, unknown> = {}) => ({
  method: 'POST',
  htu: HTU,
  now: now(),
  window: 60,
  ...extra,
});

async function refusal(proof: string, extra: Record<string, unknown> = {}): Promise<string> {
  try {
    await verifyProof(proof, expect(extra));
  } catch (error) {
    assert.ok(error instanceof DpopProblem, String(error));
    return error.description;
  }
  assert.fail('the proof was accepted');
}

describe('DPoP proof checks (RFC 9449 §4.3)', () => {
  for (const alg of ['ES256', 'EdDSA', 'Ed25519', 'RS256']) {
    it(`accepts a well-made ${alg} proof and answers its key's RFC 7638 thumbprint`, async () => {
      const key = await dpopKey(alg);
      const verified = await verifyProof(await makeProof(key, { htu: HTU }), expect());
      assert.equal(verified.jkt, await calculateJwkThumbprint(key.publicJwk, 'sha256'));
      assert.equal(typeof verified.jti, 'string');
    });
  }

  it('compares htu without query and fragment, after normalising case, default port and encoding', async () => {
    const key = await dpopKey();
    const proof = await makeProof(key, { htu: 'HTTPS://Auth.Example:443/api/%6fauth/token?x=1#f' });
    await verifyProof(proof, expect());
    assert.equal(normaliseHtu('https://a.example'), 'https://a.example/');
    assert.equal(requestHtu('https://a.example', '/api/v1/x?y=1'), 'https://a.example/api/v1/x');
  });

  it('refuses a proof longer than the limit before reading it', async () => {
    const description = await refusal('a'.repeat(10 * 1024));
    assert.match(description, new RegExp(`more than ${MAX_PROOF_LENGTH}`));
  });

  it('refuses what is not a compact JWS, and a header that is not JSON', async () => {
    assert.match(await refusal('not-a-jwt'), /not a compact JWS/);
    assert.match(await refusal(unsignedJws('{not json')), /header is not base64url-encoded JSON/);
  });

  it('refuses a typ other than dpop+jwt', async () => {
    const key = await dpopKey();
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, header: { typ: 'JWT' } })),
      /typ is "JWT"; it must be "dpop\+jwt"/,
    );
  });

  it('refuses alg none and HS256, saying a proof is signed with an asymmetric key', async () => {
    const key = await dpopKey();
    for (const alg of ['none', 'HS256']) {
      const description = await refusal(unsignedJws({ typ: 'dpop+jwt', alg, jwk: key.publicJwk }));
      assert.match(
        description,
        new RegExp(
          `alg "${alg}" is not accepted \\(a proof is signed with the private key of an asymmetric pair`,
        ),
      );
      assert.match(description, /ES256, EdDSA, Ed25519, RS256/);
    }
    assert.match(
      await refusal(unsignedJws({ typ: 'dpop+jwt', alg: 'ES512', jwk: key.publicJwk })),
      /alg "ES512" is not accepted; sign it with one of/,
    );
  });

  it('refuses a jwk carrying a private key, naming the member', async () => {
    const key = await dpopKey();
    const proof = await makeProof(key, { htu: HTU, header: { jwk: key.privateJwk } });
    assert.match(await refusal(proof), /jwk carries the private member "d"/);
    assert.match(
      await refusal(unsignedJws({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'oct', k: 'c2VjcmV0' } })),
      /private member "k"/,
    );
  });

  it('refuses a proof without a jwk, and one signed by another key than its jwk', async () => {
    const key = await dpopKey();
    const other = await dpopKey();
    assert.match(await refusal(unsignedJws({ typ: 'dpop+jwt', alg: 'ES256' })), /no "jwk" header member/);
    const forged = await makeProof(key, { htu: HTU, header: { jwk: other.publicJwk } });
    assert.match(await refusal(forged), /signature does not verify with the jwk in its header/);
  });

  it("a proof with a known key's header is still checked against that key: another key's signature is refused", async () => {
    const key = await dpopKey();
    const other = await dpopKey();
    await verifyProof(await makeProof(key, { htu: HTU }), expect());
    const forged = await makeProof(other, { htu: HTU, header: { jwk: key.publicJwk } });
    assert.equal(
      forged.split('.')[0],
      (await makeProof(key, { htu: HTU })).split('.')[0],
      'the same header text',
    );
    assert.match(await refusal(forged), /signature does not verify with the jwk in its header/);
    assert.equal(
      (await verifyProof(await makeProof(key, { htu: HTU }), expect())).jkt,
      await calculateJwkThumbprint(key.publicJwk, 'sha256'),
    );
  });

  it('refuses a jwk of the wrong type for the alg', async () => {
    const rsa = await dpopKey('RS256');
    assert.match(
      await refusal(unsignedJws({ typ: 'dpop+jwt', alg: 'ES256', jwk: rsa.publicJwk })),
      /jwk is not a usable public key/,
    );
  });

  it('refuses another method or URI, naming the expected one', async () => {
    const key = await dpopKey();
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, htm: 'GET' })),
      /htm is "GET"; it must be the request's method, "POST"/,
    );
    assert.match(
      await refusal(await makeProof(key, { htu: 'https://auth.example/api/oauth/revoke' })),
      /htu .* it must be .*"https:\/\/auth.example\/api\/oauth\/token"/,
    );
  });

  it('refuses a stale or future iat, and a proof without jti or iat', async () => {
    const key = await dpopKey();
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, iat: now() - 120 })),
      /iat is -12\d s from the server's time/,
    );
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, iat: now() + 120 })),
      /iat is 1[12]\d s from/,
    );
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, claims: { jti: undefined } })),
      /needs a "jti" claim/,
    );
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, claims: { iat: undefined } })),
      /needs an "iat" claim/,
    );
  });

  it('with an access token, needs ath to be the hash of that token', async () => {
    const key = await dpopKey();
    const token = 'sa_at_example';
    await verifyProof(await makeProof(key, { htu: HTU, accessToken: token }), expect({ accessToken: token }));
    assert.match(
      await refusal(await makeProof(key, { htu: HTU }), { accessToken: token }),
      /needs an "ath" claim/,
    );
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, accessToken: 'other' }), { accessToken: token }),
      /ath is not the hash of the access token/,
    );
  });

  it('answers the nonce a proof carries, and refuses one that is not a string', async () => {
    const key = await dpopKey();
    assert.equal((await verifyProof(await makeProof(key, { htu: HTU, nonce: 'n1' }), expect())).nonce, 'n1');
    assert.match(
      await refusal(await makeProof(key, { htu: HTU, claims: { nonce: 5 } })),
      /"nonce" must be the string/,
    );
  });

  it('reads exactly one DPoP header: none, one, or refuses two', () => {
    assert.equal(dpopHeader(undefined), undefined);
    assert.equal(dpopHeader(' a.b.c '), 'a.b.c');
    assert.throws(() => dpopHeader(['a.b.c', 'd.e.f']), /more than one DPoP header/);
    assert.throws(() => dpopHeader('a.b.c, d.e.f'), /more than one DPoP header/);
    assert.throws(() => dpopHeader(''), /DPoP header is empty/);
  });
});
