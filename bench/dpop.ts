/**
 * The bench's DPoP client side (RFC 9449): one ES256 key pair per run, made with jose, and a fresh
 * proof for every request — a new `jti` and the current `iat` (§4.2), with `ath` when an access
 * token goes with it (§7.1). A proof is signed when the load generator builds its request:
 * autocannon's `setupRequest` is synchronous, and jose signs only through WebCrypto, which is
 * asynchronous, so the compact JWS is put together here and signed with node:crypto (ES256,
 * IEEE P1363 form, RFC 7518 §3.4); the test checks that jose verifies it. Nothing of a proof is
 * made ahead of its request.
 */
import { createHash, createPrivateKey, type JsonWebKey, type KeyObject, randomUUID, sign } from 'node:crypto';
import { compactVerify, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export class DpopKey {
  /** The proof header's base64url text: the same for every proof of this key (typ, alg, jwk). */
  private readonly header: string;

  private constructor(
    private readonly privateKey: KeyObject,
    readonly publicJwk: JWK,
  ) {
    const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk };
    this.header = Buffer.from(JSON.stringify(header)).toString('base64url');
  }

  /** A new P-256 key pair, once per run. */
  static async generate(): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const { kty, crv, x, y } = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const key = createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' });
    return new DpopKey(key, { kty, crv, x, y } as JWK);
  }

  /** A proof for one request: `htm` and `htu` (no query), `ath` when `accessToken` is given. */
  proof(htm: string, htu: string, accessToken?: string): string {
    const claims: Record<string, unknown> = {
      jti: randomUUID(),
      htm,
      htu,
      iat: Math.floor(Date.now() / 1000),
    };
    if (accessToken !== undefined) claims.ath = accessTokenHash(accessToken);
    const input = `${this.header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  }
}

/** base64url(SHA-256(ASCII(token))): the `ath` claim (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/**
 * CPU µs of one ES256 signature verification by jose with an imported key, as the server checks a
 * proof whose key it has seen (it keeps imported keys by header): the yardstick of issue 46's
 * target. Measured in this process, `count` verifications one after another.
 */
export async function verificationCpuMicros(count = 2000): Promise<number> {
  const key = await DpopKey.generate();
  const publicKey = await importJWK(key.publicJwk, 'ES256');
  const proofs = Array.from({ length: count }, () => key.proof('GET', 'http://127.0.0.1/x'));
  for (const proof of proofs.slice(0, 200)) await compactVerify(proof, publicKey, { algorithms: ['ES256'] });
  const before = process.cpuUsage();
  for (const proof of proofs) await compactVerify(proof, publicKey, { algorithms: ['ES256'] });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}
