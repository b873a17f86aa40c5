/**
 * Signed JWTs in JWS compact serialisation (RFC 7515 §7.1, RFC 7519 §7.1) by node:crypto, in the
 * three ID-token algorithms: RS256 (RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256), ES256 (§3.4:
 * ECDSA P-256 with SHA-256, the signature as the raw R || S, not DER) and EdDSA (RFC 8037 §3.1:
 * Ed25519, which hashes internally). jose (used by the tests to verify) signs through WebCrypto
 * only, and WebCrypto always hands the signature to libuv's thread pool. With one CPU to run on,
 * that hand-off buys no parallelism and costs two context switches and a wake-up per signature,
 * so there the signature is made on the event loop; with more it goes to the thread pool and the
 * event loop serves other requests meanwhile.
 */
import { type KeyObject, type SignKeyObjectInput, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { SigningAlg } from './signing-key.js';

/** `os.availableParallelism()` follows the CPU affinity mask (taskset, a cpuset of one). */
const SIGN_ON_EVENT_LOOP = availableParallelism() === 1;

export interface JwsHeader {
  readonly alg: SigningAlg;
  readonly kid: string;
  readonly typ: 'JWT';
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** node:crypto's digest and key input for an algorithm (null digest: Ed25519 hashes itself). */
function signer(
  alg: SigningAlg,
  key: KeyObject,
): { digest: string | null; input: KeyObject | SignKeyObjectInput } {
  switch (alg) {
    case 'RS256':
      return { digest: 'sha256', input: key };
    // RFC 7518 §3.4: the JWS signature is R || S, 32 octets each (IEEE P1363), not DER.
    case 'ES256':
      return { digest: 'sha256', input: { key, dsaEncoding: 'ieee-p1363' } };
    case 'EdDSA':
      return { digest: null, input: key };
  }
}

export function signJwt(
  header: JwsHeader,
  claims: Readonly<Record<string, string | number>>,
  key: KeyObject,
  onEventLoop = SIGN_ON_EVENT_LOOP,
): Promise<string> {
  const input = `${encode(header)}.${encode(claims)}`;
  const data = Buffer.from(input);
  const { digest, input: keyInput } = signer(header.alg, key);
  if (onEventLoop) return Promise.resolve(`${input}.${sign(digest, data, keyInput).toString('base64url')}`);
  return new Promise((resolve, reject) => {
    sign(digest, data, keyInput, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
