import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { signJwt } from '../../src/crypto/jws.js';
import type { SigningAlg } from '../../src/crypto/signing-key.js';

const PAIRS: Record<SigningAlg, { privateKey: KeyObject; publicKey: KeyObject }> = {
  RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  EdDSA: generateKeyPairSync('ed25519'),
};
const claims = {
  iss: 'https://as.example',
  sub: 'acc_1',
  aud: 'cli_1',
  iat: 1,
  exp: 4102444800,
  nonce: 'ñ/+',
};

for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
  const { privateKey, publicKey } = PAIRS[alg];
  const header = { alg, kid: 'k1', typ: 'JWT' } as const;
  describe(`${alg} JWTs signed by node:crypto`, () => {
    for (const onEventLoop of [true, false]) {
      const where = onEventLoop ? 'on the event loop' : 'in the thread pool';
      it(`a JWT signed ${where} verifies with jose against the public key`, async () => {
        const jwt = await signJwt(header, claims, privateKey, onEventLoop);
        assert.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'compact serialisation, base64url without padding');
        assert.deepEqual(decodeProtectedHeader(jwt), header);
        const { payload } = await jwtVerify(jwt, publicKey, { algorithms: [alg], issuer: claims.iss });
        assert.deepEqual(payload, claims);
      });
    }

    it('a token whose claims were changed after signing does not verify', async () => {
      const [head, , signature] = (await signJwt(header, claims, privateKey, true)).split('.');
      const changed = Buffer.from(JSON.stringify({ ...claims, sub: 'acc_2' })).toString('base64url');
      await assert.rejects(
        jwtVerify(`${head}.${changed}.${signature}`, publicKey),
        /signature verification failed/,
      );
    });
  });
}

describe('ES256 signature encoding', () => {
  it('is the 64-octet R || S of RFC 7518 §3.4, not DER', async () => {
    const jwt = await signJwt({ alg: 'ES256', kid: 'k1', typ: 'JWT' }, claims, PAIRS.ES256.privateKey, true);
    assert.equal(Buffer.from(jwt.split('.')[2]!, 'base64url').length, 64);
  });
});
