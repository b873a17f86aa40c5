/**
 * Opaque secrets: a recognisable prefix (so leaked tokens are easy to spot and scan for), the
 * time of issue, and 256 random bits, base64url. Only a hash is stored: the random part has full
 * entropy, so a fast hash is safe and keeps the token endpoint fast (docs/storage.md "Conventions").
 *
 * The time of issue (nine base-36 digits of milliseconds, `sa_at_0mhx5c3k1…`) also begins the
 * stored key, before the SHA-256 of the whole value. Keys of new secrets therefore sort after the
 * old ones, and an insert lands on the last pages of its index instead of one random page each:
 * a random key cost a page read, a page split now and then, and a WAL frame per token at every
 * commit (docs/performance.md 23). The stamp says only when the token was issued, which its
 * holder knows and the row's created_at holds anyway.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { randomBase64url } from './random.js';

export const TOKEN_PREFIX = {
  accessToken: 'sa_at_',
  refreshToken: 'sa_rt_',
  code: 'sa_ac_',
  deviceCode: 'sa_dc_',
  clientSecret: 'sa_cs_',
  session: 'sa_ss_',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIX;

export interface MintedSecret {
  readonly value: string;
  /** The stored key (`hashSecret(value)`). */
  readonly hash: string;
}

const PREFIX_LENGTH = 6;
const STAMP_LENGTH = 9;
/** A prefix, a stamp and 43 base64url characters (32 bytes): what this module issues. */
const STAMPED = /^sa_[a-z]{2}_[0-9a-z]{9}[A-Za-z0-9_-]{43}$/;

let lastMs = -1;
let lastStamp = '';

/** Milliseconds since the epoch in base 36, nine digits (enough until the year 5188). */
function stamp(ms: number): string {
  // A code exchange mints two secrets in the same millisecond, and a busy server many more.
  if (ms !== lastMs) {
    lastMs = ms;
    lastStamp = ms.toString(36).padStart(STAMP_LENGTH, '0');
  }
  return lastStamp;
}

/**
 * The key a secret is stored and looked up by: its stamp, then the SHA-256 of the whole value.
 * A value without a stamp (secrets issued before stamps, and anything else a client sends) is
 * keyed by the SHA-256 alone, so secrets issued before stay valid.
 */
export function hashSecret(value: string): string {
  const digest = hash('sha256', value, 'base64url');
  return STAMPED.test(value) ? value.slice(PREFIX_LENGTH, PREFIX_LENGTH + STAMP_LENGTH) + digest : digest;
}

/**
 * A new secret: fresh CSPRNG output (256 bits) behind its prefix and stamp. Every secret this
 * server issues comes from here, never from another secret (issue 19).
 */
export function mintSecret(kind: TokenKind): MintedSecret {
  const value = TOKEN_PREFIX[kind] + stamp(Date.now()) + randomBase64url(32);
  return { value, hash: hashSecret(value) };
}

/** Constant-time comparison of two strings (hash both so lengths never leak). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash('sha256', a, 'buffer'), hash('sha256', b, 'buffer'));
}

/**
 * An identifier that sorts by creation time: base-36 milliseconds (9 digits until the year 5188),
 * then 96 random bits. Grants get one: the tokens of a grant are indexed by its id, and new
 * tokens mostly belong to new grants, so their index entries land on the same few pages at the
 * end of the index instead of one random page each (a page written to the WAL per commit).
 */
export function timeOrderedId(prefix: string): string {
  return prefix + stamp(Date.now()) + randomBase64url(12);
}

/** A random identifier (not a secret): for rows, client ids, key ids. */
export function randomId(prefix = ''): string {
  return prefix + randomBase64url(16);
}
