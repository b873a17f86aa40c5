/**
 * User codes (RFC 8628 §6.1): eight characters of Crockford's base32 alphabet, which leaves out
 * I, L, O and U (no look-alikes of 1 and 0, fewer words), 5 bits each: 40 bits. Shown in two
 * groups of four, `BCDF-GHJK`. What a person types is forgiven its case, its spaces and dashes,
 * and the look-alikes Crockford maps (O → 0, I and L → 1).
 */
import { randomInt } from 'node:crypto';
import { hashSecret } from '../../crypto/tokens.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const USER_CODE_LENGTH = 8;

/** A new user code, normalised (no dash). */
export function mintUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** The code as shown: two groups of four. */
export const displayUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/** What a person typed, normalised; undefined when it cannot be a user code. */
export function normaliseUserCode(typed: string): string | undefined {
  if (typed.length > 64) return undefined;
  const code = typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const c of code) if (!ALPHABET.includes(c)) return undefined;
  return code;
}

/** The stored key of a normalised user code (docs/storage.md `device_authorizations`). */
export const userCodeHash = (code: string): string => hashSecret(`user_code:${code}`);
