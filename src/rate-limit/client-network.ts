/**
 * The network a client address counts for, in the per-IP limits: an IPv4 address itself, and for
 * IPv6 its /64 prefix. One IPv6 subscriber is routinely given a whole /64 (RFC 6177, RFC 8273),
 * so keying per address would hand a single attacker 2^64 separate allowances. An IPv4-mapped
 * IPv6 address (`::ffff:192.0.2.1`, what a dual-stack listener reports) counts as its IPv4 address.
 */
import ipaddr from 'ipaddr.js';

const IPV6_PREFIX = 64;

/** `192.0.2.1` → `192.0.2.1`; `2001:db8:1:2:a:b:c:d` → `2001:db8:1:2::/64`. */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const bytes = address.toByteArray().fill(0, IPV6_PREFIX / 8);
  return `${ipaddr.fromByteArray(bytes).toString()}/${IPV6_PREFIX}`;
}
