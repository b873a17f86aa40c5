/**
 * The successor pair of a refresh rotation, kept for the grace window (docs/decisions.md "Refresh rotation") in a form only the
 * presented refresh token opens: AES-256-GCM under a key derived with HKDF-SHA256 from that token
 * and a random salt. The database holds the token's stored key (its SHA-256), never the token, so
 * what is stored opens nothing by itself; the successors themselves are fresh CSPRNG output, never
 * a function of the presented token (issue 19: a copy of an old token must be worth nothing).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1.';
const INFO = 'schoolauth refresh successor v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
}

function keyFor(presented: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', presented, salt, INFO, 32));
}

/** Seals `pair` under a key derived from `presented`. */
export function sealSuccessor(presented: string, pair: TokenPair): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(presented, salt), iv);
  const body = Buffer.concat([
    cipher.update(`${pair.accessToken} ${pair.refreshToken}`, 'utf8'),
    cipher.final(),
  ]);
  return VERSION + Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens what `sealSuccessor` sealed for the same `presented` token; undefined for anything else. */
export function openSuccessor(presented: string, sealed: string): TokenPair | undefined {
  if (!sealed.startsWith(VERSION)) return undefined;
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64url');
  if (raw.length <= SALT_BYTES + IV_BYTES + TAG_BYTES) return undefined;
  const salt = raw.subarray(0, SALT_BYTES);
  const iv = raw.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const tag = raw.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', keyFor(presented, salt), iv);
  decipher.setAuthTag(tag);
  let plain: string;
  try {
    plain = Buffer.concat([
      decipher.update(raw.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
  const [accessToken, refreshToken, ...rest] = plain.split(' ');
  if (!accessToken || !refreshToken || rest.length > 0) return undefined;
  return { accessToken, refreshToken };
}
