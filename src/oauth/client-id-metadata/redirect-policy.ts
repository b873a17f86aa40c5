/**
 * Which redirect URI of a metadata document a request may use (docs/decisions.md "Client ID Metadata Documents"), as pure policy.
 * Self-service stays loopback-only (docs/decisions.md "What the customer's interface description fixes"): the requested URI must be listed in the document
 * and be a loopback URI. A loopback entry matches on any port (RFC 8252 §7.3), written with or
 * without one — agents publish `http://127.0.0.1/callback` and bind a port at request time — and an
 * empty path equals "/" (RFC 3986 §6.2.3). `application_type` changes nothing. An https entry is
 * usable only for a client_id the operator trusts (a registered integration, `schoolauth client
 * trust`), and then only by exact string (RFC 9700 §4.1.3).
 */

interface LoopbackUri {
  readonly host: string;
  readonly path: string;
  readonly query: string;
}

// http://<loopback host>[:<port>][<path>][?<query>], written literally: the path in RFC 3986
// pchar without percent-encoding, the query with it (the same forms self-registration accepts).
const LOOPBACK =
  /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::([1-9]\d{0,4}))?((?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@]*)*)(\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?$/;

function parseLoopback(uri: string, loopbackHosts: readonly string[]): LoopbackUri | undefined {
  const match = LOOPBACK.exec(uri);
  if (!match || !loopbackHosts.includes(match[1]!)) return undefined;
  if (match[2] !== undefined && Number(match[2]) > 65535) return undefined;
  const path = match[3] || '/';
  // No dot segments: a browser would resolve them to another path than the one compared here.
  if (path.split('/').some((s) => s === '.' || s === '..')) return undefined;
  return { host: match[1]!, path, query: match[4] ?? '' };
}

export type RedirectDecision = { readonly ok: true } | { readonly ok: false; readonly problem: string };

export interface RedirectPolicy {
  /** The operator registered this client_id URL (or its domain) as an integration. */
  readonly trusted: boolean;
  readonly loopbackHosts: readonly string[];
}

function sameLoopback(a: LoopbackUri, b: LoopbackUri): boolean {
  return a.host === b.host && a.path === b.path && a.query === b.query;
}

/** An absolute https URL without credentials or fragment (RFC 6749 §3.1.2). */
function isPlainHttps(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' && !url.username && !url.password && !uri.includes('#');
  } catch {
    return false;
  }
}

/** Whether `requested` may receive the response, given the document's `redirect_uris`. */
export function judgeRedirect(
  requested: string,
  documentUris: readonly string[],
  policy: RedirectPolicy,
): RedirectDecision {
  const loopback = parseLoopback(requested, policy.loopbackHosts);
  if (loopback) {
    const listed = documentUris.some((uri) => {
      const entry = parseLoopback(uri, policy.loopbackHosts);
      return entry !== undefined && sameLoopback(entry, loopback);
    });
    return listed ? { ok: true } : { ok: false, problem: "is not listed in the app's metadata document" };
  }
  if (!documentUris.includes(requested)) {
    return { ok: false, problem: "is not listed in the app's metadata document" };
  }
  if (!isPlainHttps(requested)) {
    return {
      ok: false,
      problem: `is not a loopback address (${policy.loopbackHosts.join(', ')}) and not https, so it cannot receive the answer here`,
    };
  }
  if (!policy.trusted) {
    return {
      ok: false,
      problem:
        'is a fixed HTTPS callback. Apps identified by a metadata document may return only to an app on your computer (a loopback address) unless the operators of this service have registered the app as an integration',
    };
  }
  return { ok: true };
}
