/**
 * RFC 9449 §4.3 check 9: the proof's `htu` must be the request's URI "without query and fragment
 * parts", compared after syntax- and scheme-based normalisation (RFC 3986 §6.2.2, §6.2.3): case of
 * scheme and host, the default port, percent-encoding case and dot segments. The WHATWG URL parser
 * does all of those; the comparison is of origin and path only.
 */

/** The normalised form of an absolute http(s) URI without query and fragment; undefined when it is none. */
export function normaliseHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  // Percent-encodings of unreserved characters name the same resource (RFC 3986 §6.2.2.2).
  const path = url.pathname.replace(/%([0-9a-fA-F]{2})/g, (whole, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : whole.toUpperCase();
  });
  return `${url.origin}${path === '' ? '/' : path}`;
}

/** The URI a request was sent to, as the proof must name it: the issuer's origin and the path. */
export function requestHtu(issuer: string, requestUrl: string): string {
  const query = requestUrl.indexOf('?');
  return normaliseHtu(issuer + (query === -1 ? requestUrl : requestUrl.slice(0, query))) ?? issuer;
}
