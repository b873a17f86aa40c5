/**
 * PKCE (RFC 7636) with the S256 method only (docs/decisions.md "What the customer's interface description fixes").
 */
import { hash, timingSafeEqual } from 'node:crypto';

// RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 32 bytes → 43 characters without padding; the
// last character carries 4 bits, so only 16 of the 64 alphabet letters can end a real S256 output.
const CHALLENGE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
// RFC 7636 §4.1: code-verifier = 43*128unreserved.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Whether a value can be an S256 code challenge. */
export function isValidCodeChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** Whether a value is a syntactically valid code verifier (RFC 7636 §4.1). */
export function isValidCodeVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

const VERIFIER_RULE =
  'RFC 7636 §4.1 allows 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (base64url without padding)';

/**
 * What is wrong with a verifier's syntax (RFC 7636 §4.1), or undefined when it is well formed:
 * its length, or the characters it may not contain (git-credential-oauth 0.4.2 sends padded
 * standard base64, with "=", "+" and "/").
 */
export function codeVerifierProblem(verifier: string): string | undefined {
  if (isValidCodeVerifier(verifier)) return undefined;
  const forbidden = [...new Set(verifier.replace(/[A-Za-z0-9\-._~]/g, ''))];
  const shown = forbidden
    .slice(0, 8)
    .map((c) => JSON.stringify(c))
    .join(', ');
  const what =
    forbidden.length > 0
      ? `contains characters a verifier may not have (${shown})`
      : `is ${verifier.length} characters long`;
  return `code_verifier ${what}; ${VERIFIER_RULE}`;
}

/** The S256 challenge of a verifier (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  // The verifier is ASCII by its syntax (checked first), so its UTF-8 bytes are its ASCII bytes.
  return hash('sha256', verifier, 'base64url');
}

/** RFC 7636 §4.6: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) == code_challenge, in constant time. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isValidCodeVerifier(verifier)) return false;
  // Both are 43 ASCII characters (the challenge was checked against CHALLENGE when the code was
  // issued), so they compare byte for byte without hashing both sides as safeEqual does.
  const computed = Buffer.from(s256(verifier));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
