/**
 * The operator's say over client_id URLs (docs/decisions.md "Client ID Metadata Documents", draft §8.9), as pure policy. A rule names one
 * client_id URL exactly, or a domain — which covers that host and every host below it, as the
 * operator of a domain controls its subdomains. A block wins over any trust; otherwise a trust
 * rule makes the client a registered integration, whose https redirect URIs become usable.
 */
import type { ClientMetadataRule } from '../../storage/schema.js';
import { clientIdRuleKey } from './client-id-url.js';
import { normalizeHost } from './host-names.js';

export type MetadataVerdict = 'blocked' | 'trusted' | 'default';

/**
 * Whether `host` is `domain` or a subdomain of it: labels compared whole, both sides in one
 * spelling (case, final dot and IDNA, host-names.ts).
 */
export function inDomain(host: string, domain: string): boolean {
  const h = normalizeHost(host);
  const d = normalizeHost(domain);
  // An IP literal has no subdomains and is no subdomain: only the address itself.
  return h === d || (!isIpLiteral(d) && !isIpLiteral(h) && h.endsWith(`.${d}`));
}

const isIpLiteral = (host: string): boolean =>
  /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || /^\[[0-9a-f:.]+\]$/i.test(host);

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]*[a-z][a-z0-9-]*$/;

function applies(rule: ClientMetadataRule, clientId: string, host: string): boolean {
  return rule.target_kind === 'client_id'
    ? clientIdRuleKey(rule.target) === clientIdRuleKey(clientId)
    : inDomain(host, rule.target);
}

/** What the rules say about one client_id URL (whose hostname is `host`). */
export function judgeClientId(
  rules: readonly ClientMetadataRule[],
  clientId: string,
  host: string,
): MetadataVerdict {
  const matching = rules.filter((rule) => applies(rule, clientId, host));
  if (matching.some((rule) => rule.decision === 'block')) return 'blocked';
  return matching.length > 0 ? 'trusted' : 'default';
}

/**
 * Why `domain` (already normalised: normalizeHost) cannot be a rule's domain, or undefined: a host
 * name of at least two labels (a rule for a whole top-level domain is almost certainly a mistake),
 * or an IP literal as a URL writes it (which matches only itself).
 */
export function domainProblem(domain: string): string | undefined {
  if (isIpLiteral(domain) || HOST_NAME.test(domain)) return undefined;
  return `"${domain}" is not a host name with at least two labels, such as example.com`;
}
