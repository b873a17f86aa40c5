/**
 * Redirect URI policy. Self-registration (RFC 7591) is open only to native clients that receive
 * the response on a loopback address (RFC 8252 §7.3, §8.3); every other redirect URI needs a
 * registered integration arranged with the operator. Matching at the authorization endpoint is
 * exact, except that a loopback redirect URI may use any port (RFC 8252 §7.3) and an empty path
 * equals "/" (RFC 3986 §6.2.3).
 */

/** An http URI split into host, optional port and the rest (path and query), as written. */
interface LoopbackParts {
  readonly host: string;
  readonly port: string | undefined;
  readonly rest: string;
}

// Authority without userinfo: a bracketed IPv6 literal or a reg-name/IPv4, then an optional port.
const HTTP_PARTS = /^http:\/\/(\[[^\]/?#@]*\]|[^/?#@:[\]]*)(?::(\d*))?([/?].*)?$/s;
// RFC 3986 pchar without percent-encoding: an encoded byte in a callback path only serves tricks
// ("%2e%2e", "%2f"), so paths must be written literally.
const PATH = /^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@]*)+$/;
// RFC 3986 query, percent-encoding allowed (a client may carry its own parameters).
const QUERY = /^\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/** Splits an http URI; an empty path reads as "/" (RFC 3986 §6.2.3), so `rest` starts with "/". */
function splitHttp(uri: string): LoopbackParts | undefined {
  const match = HTTP_PARTS.exec(uri);
  if (!match) return undefined;
  const rest = match[3] ?? '';
  return { host: match[1]!, port: match[2], rest: rest.startsWith('/') ? rest : `/${rest}` };
}

/** The URI the parts spell, with the path "/" where it was empty (the form URL parsers serialise). */
function rootPathForm(parts: LoopbackParts): string {
  return `http://${parts.host}${parts.port === undefined ? '' : `:${parts.port}`}${parts.rest}`;
}

function acceptedForms(loopbackHosts: readonly string[]): string {
  return loopbackHosts.map((h) => `http://${h}:<port>/<path>`).join(', ');
}

/** Whether the string parses as a URL and serialises back to itself (no normalisation tricks). */
function canonicalForm(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

function schemeProblem(uri: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1];
  if (scheme === undefined) return 'is not an absolute URI';
  if (scheme.toLowerCase() === 'https') {
    return 'is a fixed HTTPS callback, which self-registration does not accept';
  }
  if (scheme !== 'http') return `uses the scheme "${scheme}:"; only http on a loopback address is accepted`;
  return undefined;
}

function authorityProblem(uri: string, loopbackHosts: readonly string[]): string | undefined {
  const authority = /^http:\/\/([^/?#]*)/.exec(uri)?.[1] ?? '';
  // RFC 6749 §3.1.2 / RFC 3986 §3.2.1: credentials in a redirect URI are never acceptable.
  if (authority.includes('@')) return 'contains user information ("user@"); remove it';
  const parts = splitHttp(uri);
  if (!parts || !loopbackHosts.includes(parts.host)) {
    const host = parts?.host ?? authority;
    return `names the host ${JSON.stringify(host)}, which is not an accepted loopback host (${loopbackHosts.join(', ')})`;
  }
  if (parts.port !== undefined && !/^[1-9]\d{0,4}$/.test(parts.port)) {
    return 'has an invalid port; write a port from 1 to 65535 without leading zeros, or leave it out';
  }
  if (parts.port !== undefined && Number(parts.port) > 65535) {
    return 'has a port above 65535';
  }
  return undefined;
}

function pathProblem(parts: LoopbackParts): string | undefined {
  const queryStart = parts.rest.indexOf('?');
  const path = queryStart === -1 ? parts.rest : parts.rest.slice(0, queryStart);
  const query = queryStart === -1 ? '' : parts.rest.slice(queryStart);
  if (!PATH.test(path)) {
    return 'has a path with characters that must not appear literally or percent-encoded; use letters, digits and - . _ ~ /';
  }
  if (query !== '' && !QUERY.test(query)) return 'has a malformed query';
  return undefined;
}

function uriProblem(uri: string, loopbackHosts: readonly string[]): string | undefined {
  if (uri.length === 0) return 'is empty';
  if (uri.length > 2000) return 'is longer than 2000 characters';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0020\u007f]/.test(uri)) return 'contains whitespace or control characters';
  if (/[^\u0021-\u007e]/.test(uri)) return 'contains non-ASCII characters; write it in ASCII';
  const scheme = schemeProblem(uri);
  if (scheme) return scheme;
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment component.
  if (uri.includes('#')) return 'contains a fragment ("#…"), which a redirect URI must not have';
  const authority = authorityProblem(uri, loopbackHosts);
  if (authority) return authority;
  const canonical = canonicalForm(uri);
  if (canonical === undefined) return 'is not a valid URI';
  const parts = splitHttp(uri)!;
  const path = pathProblem(parts);
  if (path) return path;
  // A path-less URI is the same URI with "/" (RFC 3986 §6.2.3): oidc-agent and
  // git-credential-oauth register `http://localhost:4242` and `http://127.0.0.1`.
  if (canonical !== rootPathForm(parts)) {
    return `is not in canonical form; register ${JSON.stringify(canonical)} instead`;
  }
  return undefined;
}

/**
 * Whether a URI uses a private-use scheme (RFC 8252 §7.1: a reverse domain name such as
 * `edu.kit.data.oidc-agent:/redirect`). Native clients list one beside their loopback URIs
 * (oidc-agent does by default); self-registration keeps the loopback ones (docs/decisions.md).
 */
export function isPrivateUseScheme(uri: string): boolean {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1];
  return scheme?.includes('.') === true && !/[#\s]/.test(uri);
}

/**
 * Why a redirect URI cannot be self-registered, or undefined when it is accepted. Accepted:
 * `http://<loopback host>[:<port>][/<path>][?<query>]` in canonical form (an empty path standing
 * for "/"), for a configured loopback host. The port may be left out: RFC 8252 §7.3 has the
 * client pick a port at request time, and any port matches later anyway (docs/decisions.md).
 */
export function registrationRedirectUriProblem(
  uri: string,
  loopbackHosts: readonly string[],
): string | undefined {
  const problem = uriProblem(uri, loopbackHosts);
  if (problem === undefined) return undefined;
  return (
    `redirect URI ${JSON.stringify(uri)} ${problem}. Self-registration accepts only loopback redirect URIs ` +
    `of the form ${acceptedForms(loopbackHosts)}; a fixed HTTPS callback needs a registered integration ` +
    'arranged with the operator'
  );
}

/** Whether a requested URI is a well-formed http URI naming the same host and path as a registered one. */
function loopbackMatches(requested: LoopbackParts, registered: LoopbackParts): boolean {
  if (requested.host !== registered.host || requested.rest !== registered.rest) return false;
  return requested.port === undefined || /^[1-9]\d{0,4}$/.test(requested.port);
}

function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '[::1]' || host === 'localhost';
}

/**
 * The registered redirect URI the requested one matches, or undefined. Integrations match by exact
 * string comparison (RFC 6749 §3.1.2.3, OAuth 2.1 §4.1.3). For self-registered loopback URIs the
 * port is ignored (RFC 8252 §7.3: native apps bind an ephemeral port at request time) and an
 * empty path equals "/" (RFC 3986 §6.2.3); scheme, host, path and query must still match exactly.
 * The caller redirects to the requested URI, not to the registered one it matched.
 */
export function matchRedirectUri(
  requested: string,
  registered: readonly string[],
  kind: 'dynamic' | 'integration',
): string | undefined {
  const exact = registered.find((uri) => uri === requested);
  if (exact !== undefined || kind === 'integration') return exact;
  const parts = splitHttp(requested);
  if (!parts || !isLoopbackHost(parts.host) || canonicalForm(requested) !== rootPathForm(parts))
    return undefined;
  if (requested.includes('#') || /\s/.test(requested)) return undefined;
  if (parts.port !== undefined && Number(parts.port) > 65535) return undefined;
  return registered.find((uri) => {
    const candidate = splitHttp(uri);
    return candidate !== undefined && isLoopbackHost(candidate.host) && loopbackMatches(parts, candidate);
  });
}
