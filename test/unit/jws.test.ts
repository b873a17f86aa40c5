import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { signJwt } from '../../src/crypto/jws.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const header = { alg: 'RS256', kid: 'k1', typ: 'JWT' } as const;
const claims = {
  iss: 'https://as.example',
  sub: 'acc_1',
  aud: 'cli_1',
  iat: 1,
  exp: 4102444800,
  nonce: 'ñ/+',
};

describe('RS256 JWTs signed by node:crypto', () => {
  for (const onEventLoop of [true, false]) {
    const where = onEventLoop ? 'on the event loop' : 'in the thread pool';
    it(`a JWT signed ${where} verifies with jose against the public key`, async () => {
      const jwt = await signJwt(header, claims, privateKey, onEventLoop);
      assert.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'compact serialisation, base64url without padding');
      assert.deepEqual(decodeProtectedHeader(jwt), header);
      const { payload } = await jwtVerify(jwt, publicKey, { algorithms: ['RS256'], issuer: claims.iss });
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
