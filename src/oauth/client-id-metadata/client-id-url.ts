/**
 * Client Identifier URLs (draft-ietf-oauth-client-id-metadata-document §3), as pure policy: which
 * `client_id` values name a metadata document, and whether one is well-formed enough to fetch.
 */

import { normalizeHost } from './host-names.js';

/** Longest client_id URL accepted (the id is stored, shown and audited as is). */
export const MAX_CLIENT_ID_URL = 2000;

/**
 * Whether a client_id is a URL, so it names a metadata document rather than a registration row.
 * Ids this server issues never contain "://" (draft §7.1: a server's own ids must not start with
 * https://), so no registered client is ever mistaken for one.
 */
export function isClientIdUrl(clientId: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(clientId);
}

function dotSegment(path: string): boolean {
  return path.split(/[/?]/).some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}

/**
 * Why `clientId` cannot be fetched as a Client Identifier URL, or undefined when it can. Draft §3:
 * https, a path, no userinfo, no fragment, no dot segments. Compared as simple strings (RFC 3986
 * §6.2.1), so the URL must already be in the canonical form a WHATWG parser gives it: a spelling
 * that parses to another string (upper-case host, default port ":443", "%7E") would make the
 * document's `client_id` never equal the URL, and is refused here with the form to use instead.
 */
export function clientIdUrlProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_URL) return `is longer than ${MAX_CLIENT_ID_URL} characters`;
  if (/[^\u0021-\u007e]/.test(clientId)) return 'contains whitespace, control or non-ASCII characters';
  if (!clientId.startsWith('https://')) return 'does not use https (a metadata document URL must)';
  const authority = /^https:\/\/([^/?#]*)/.exec(clientId)![1]!;
  if (authority.includes('@')) return 'contains user information ("user@"), which it must not';
  if (clientId.includes('#')) return 'contains a fragment ("#…"), which it must not';
  const rest = clientId.slice(`https://${authority}`.length);
  if (!rest.startsWith('/')) return 'has no path; the document must be at a path such as /client.json';
  if (dotSegment(rest)) return 'contains a "." or ".." path segment, which it must not';
  let canonical: string;
  try {
    canonical = new URL(clientId).href;
  } catch {
    return 'is not a valid URL';
  }
  if (canonical !== clientId) return `is not in canonical form; use ${JSON.stringify(canonical)}`;
  // The URL parser keeps a host's final dot, and DNS and TLS ignore it: `https://example.com./…`
  // is example.com's document under another string (draft §3 compares client_ids as strings), so
  // it is refused rather than judged, cached or shown as a second client of that host.
  const url = new URL(clientId);
  if (url.hostname.endsWith('.')) {
    url.hostname = normalizeHost(url.hostname);
    return `names its host with a final dot; use ${JSON.stringify(url.href)}`;
  }
  return undefined;
}

/**
 * The host of a client_id URL, in the one spelling every rule and page uses (host-names.ts): what
 * a person sees (draft §8.5) and what a domain rule is matched against. Without port.
 */
export function clientIdHost(clientId: string): string {
  return normalizeHost(new URL(clientId).hostname);
}

/**
 * A client_id URL with its host in that spelling: what a client_id rule is compared by, so a rule
 * also covers a row stored under a final-dot spelling before such URLs were refused.
 */
export function clientIdRuleKey(clientId: string): string {
  try {
    const url = new URL(clientId);
    url.hostname = normalizeHost(url.hostname);
    return url.href;
  } catch {
    return clientId;
  }
}
