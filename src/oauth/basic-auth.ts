/**
 * HTTP Basic client credentials (RFC 6749 §2.3.1, RFC 7617), read from an Authorization header
 * without HTTP: the client identifier and secret are each form-urlencoded (Appendix B), joined by
 * ":" and base64-encoded. Pure, so the rate limiter and client authentication read them alike.
 */

export type BasicAuthorization =
  | { readonly kind: 'basic'; readonly clientId: string; readonly clientSecret: string }
  | { readonly kind: 'malformed'; readonly description: string };

/** Client authentication that the description of every malformed header points to. */
export const CLIENT_AUTH_HINT =
  'send "Authorization: Basic base64(urlencoded client_id:urlencoded client_secret)" (RFC 6749 §2.3.1), or client_id (and client_secret) in the form body';

// RFC 7235 §2.1: credentials = auth-scheme [ 1*SP ( token68 / … ) ]; the scheme is a token.
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/s;
// RFC 7617 §2 / RFC 4648 §4: the standard base64 alphabet, padding optional.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const malformed = (problem: string): BasicAuthorization => ({
  kind: 'malformed',
  description: `${problem}; ${CLIENT_AUTH_HINT}`,
});

/** RFC 6749 Appendix B: application/x-www-form-urlencoded, so "+" is a space. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function base64Decode(value: string): string | undefined {
  if (!BASE64.test(value) || value.replace(/=+$/, '').length % 4 === 1) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
  } catch {
    return undefined;
  }
}

/** The client credentials of an Authorization header, or why they cannot be read. */
export function parseBasicAuthorization(header: string): BasicAuthorization {
  const match = CREDENTIALS.exec(header.trim());
  if (!match) return malformed('the Authorization header is malformed');
  const scheme = match[1]!;
  if (scheme.toLowerCase() !== 'basic') {
    return malformed(
      `the Authorization header uses the "${scheme.slice(0, 32)}" scheme, which clients cannot authenticate with here`,
    );
  }
  const decoded = base64Decode((match[2] ?? '').trim());
  if (decoded === undefined) return malformed('the Basic credentials are not valid base64 of UTF-8 text');
  const colon = decoded.indexOf(':');
  if (colon === -1) return malformed('the Basic credentials have no ":" between client_id and client_secret');
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === undefined || clientSecret === undefined) {
    return malformed('the Basic credentials contain a malformed percent-encoding');
  }
  if (clientId === '') return malformed('the Basic credentials have an empty client_id');
  return { kind: 'basic', clientId, clientSecret };
}
