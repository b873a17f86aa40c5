/**
 * Redirect URIs of registered integrations (docs/cli.md; docs/decisions.md "What the customer's interface description fixes"): a fixed HTTPS callback, or a
 * loopback address (RFC 8252 §7.3) for an integration that is a desktop tool. Pure policy.
 */

/** Why `uri` cannot be an integration's redirect URI, or undefined when it can. */
export function integrationRedirectUriProblem(
  uri: string,
  loopbackHosts: readonly string[],
): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URL; give one like https://app.example.com/callback`;
  }
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment.
  if (url.hash || uri.includes('#')) return `"${uri}" has a fragment; remove it`;
  if (url.username || url.password) return `"${uri}" has user information; remove it`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopbackHosts.includes(url.hostname)) return undefined;
  return `"${uri}" is neither https nor an http loopback address (${loopbackHosts.join(', ')})`;
}
