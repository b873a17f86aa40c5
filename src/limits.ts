/**
 * Size limits on what a client may send (issue 6 §2), in one place so docs/clients.md can list them
 * and every endpoint enforces the same numbers. Over a body limit: 413; over a parameter limit:
 * 400 invalid_request naming the parameter.
 */

/** Default for JSON bodies (registration, the school API). */
export const JSON_BODY_LIMIT = 64 * 1024;
/** application/x-www-form-urlencoded bodies: token, revocation, introspection, pages. */
export const FORM_BODY_LIMIT = 16 * 1024;
/** Any single OAuth parameter value (tokens are ~50 characters, redirect URIs at most 2000). */
export const MAX_PARAMETER_LENGTH = 4096;
/** The whole scope string: all 38 scope names together take about 600 characters. */
export const MAX_SCOPE_LENGTH = 2048;
/** Node's default limit on the request line plus headers (URL and cookies included); 431 above it. */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * The whole URL (path and query); 414 above it. RFC 9110 §4.1 asks for at least 8000 octets;
 * a longer authorization request belongs in a POST body.
 */
export const MAX_URL_LENGTH = 8 * 1024;
/** The error_description of a 414 for the whole URL. */
export const URL_TOO_LONG = `the URL is longer than ${MAX_URL_LENGTH} characters; send fewer or shorter parameters, or send them in a POST body`;
/** One path segment (an id or a slug); 414 above it. */
export const MAX_PATH_SEGMENT_LENGTH = 200;

/** The first parameter whose value is longer than MAX_PARAMETER_LENGTH, if any. */
export function overlongParameter(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  for (const [name, value] of Object.entries(params)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.length > MAX_PARAMETER_LENGTH)) return name;
  }
  return undefined;
}
