/**
 * Resource indicators (RFC 8707). This server protects one API, identified by the issuer, so the
 * only acceptable resource is the issuer (with or without a trailing slash); tokens for it carry
 * the canonical issuer string as their audience.
 */

export type ResolvedResource = { readonly resource: string } | { readonly error: string };

/**
 * The canonical resource for a `resource` parameter, or the reason it is refused (to be answered
 * with `invalid_target`). Absent → the issuer (docs/decisions.md "Resource indicators").
 */
export function resolveResource(value: string | undefined, issuer: string): ResolvedResource {
  if (value === undefined) return { resource: issuer };
  const hint = `send resource=${issuer} or leave it out`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // RFC 8707 §2: the value MUST be an absolute URI.
    return { error: `resource ${JSON.stringify(value)} is not an absolute URI; ${hint}` };
  }
  // RFC 8707 §2: it MUST NOT include a fragment component.
  if (value.includes('#') || url.hash !== '') {
    return {
      error: `resource ${JSON.stringify(value)} contains a fragment, which RFC 8707 forbids; ${hint}`,
    };
  }
  if (value === issuer || value === `${issuer}/`) return { resource: issuer };
  return { error: `resource ${JSON.stringify(value)} is not an API this server protects; ${hint}` };
}
