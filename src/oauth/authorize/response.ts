/**
 * Building the redirect back to the client (RFC 6749 §4.1.2, §4.1.2.1). The redirect URI's own
 * query is kept (§3.1.2) and `iss` is always added (RFC 9207 §2), so a client can tell which
 * server answered — also on errors.
 */

export function clientRedirect(
  redirectUri: string,
  params: Readonly<Record<string, string | undefined>>,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  url.searchParams.append('iss', issuer);
  return url.href;
}
