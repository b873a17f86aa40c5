/**
 * Opaque secrets: 256 random bits, base64url, behind a recognisable prefix (so leaked tokens are
 * easy to spot and scan for). Only their SHA-256 is stored: the value has full entropy, so a fast
 * hash is safe and keeps the token endpoint fast (SPEC §9).
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { randomBase64url } from './random.js';

export const TOKEN_PREFIX = {
  accessToken: 'sa_at_',
  refreshToken: 'sa_rt_',
  code: 'sa_ac_',
  clientSecret: 'sa_cs_',
  session: 'sa_ss_',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIX;

export interface MintedSecret {
  readonly value: string;
  readonly hash: string;
}

export function hashSecret(value: string): string {
  return hash('sha256', value, 'base64url');
}

export function mintSecret(kind: TokenKind): MintedSecret {
  const value = TOKEN_PREFIX[kind] + randomBase64url(32);
  return { value, hash: hashSecret(value) };
}

/**
 * A secret derived from another secret: unpredictable without the parent, and the same every time.
 * Refresh rotation uses it so a repeat inside the grace window can answer the same pair while
 * the server still stores only hashes.
 */
export function deriveSecret(kind: TokenKind, parent: string, label: string): MintedSecret {
  const value =
    TOKEN_PREFIX[kind] + createHmac('sha256', parent).update(`schoolauth:${label}`).digest('base64url');
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
  return prefix + Date.now().toString(36).padStart(9, '0') + randomBase64url(12);
}

/** A random identifier (not a secret): for rows, client ids, key ids. */
export function randomId(prefix = ''): string {
  return prefix + randomBase64url(16);
}
