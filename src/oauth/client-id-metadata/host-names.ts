/**
 * One spelling per host before any rule, comparison or display (issue 44): DNS ignores the final
 * dot of a fully qualified name and the case of letters (RFC 4343), and an internationalised name
 * is the same host as its A-label (RFC 5891), so `Example.COM.`, `example.com` and `bücher.example`
 * / `xn--bcher-kva.example` must each be judged as one host. IDNA is Node's own (`domainToASCII`,
 * the WHATWG URL host parser).
 */
import { domainToASCII } from 'node:url';

/**
 * The host in its one spelling: lower case, A-labels, no final dot. An IPv6 literal in brackets
 * is only lower-cased; something that is no host at all comes back lower-cased, without its final
 * dot, for the caller's own check to refuse.
 */
export function normalizeHost(host: string): string {
  if (host.startsWith('[')) return host.toLowerCase();
  const withoutDot = host.endsWith('.') ? host.slice(0, -1) : host;
  return domainToASCII(withoutDot) || withoutDot.toLowerCase();
}
