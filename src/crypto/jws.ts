/**
 * Signed JWTs in JWS compact serialisation (RFC 7515 §7.1, RFC 7519 §7.1), RS256 (RFC 7518
 * §3.3: RSASSA-PKCS1-v1_5 with SHA-256) by node:crypto. jose (used for the keys, and by the tests
 * to verify) signs through WebCrypto only, and WebCrypto always hands the signature to libuv's
 * thread pool. With one CPU to run on, that hand-off buys no parallelism and costs two context
 * switches and a wake-up per signature, so there the signature is made on the event loop; with
 * more it goes to the thread pool and the event loop serves other requests meanwhile.
 */
import { type KeyObject, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';

/** `os.availableParallelism()` follows the CPU affinity mask (taskset, a cpuset of one). */
const SIGN_ON_EVENT_LOOP = availableParallelism() === 1;

export interface JwsHeader {
  readonly alg: 'RS256';
  readonly kid: string;
  readonly typ: 'JWT';
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function signJwt(
  header: JwsHeader,
  claims: Readonly<Record<string, string | number>>,
  key: KeyObject,
  onEventLoop = SIGN_ON_EVENT_LOOP,
): Promise<string> {
  const input = `${encode(header)}.${encode(claims)}`;
  const data = Buffer.from(input);
  if (onEventLoop) return Promise.resolve(`${input}.${sign('sha256', data, key).toString('base64url')}`);
  return new Promise((resolve, reject) => {
    sign('sha256', data, key, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
