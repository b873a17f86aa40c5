/** Random bytes for secrets and ids, from Node's CSPRNG. */
import { randomBytes } from 'node:crypto';

/** `bytes` fresh random bytes, base64url-encoded. */
export function randomBase64url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
