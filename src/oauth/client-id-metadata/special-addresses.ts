/**
 * Which IP addresses a client metadata document may be fetched from (draft-ietf-oauth-client-id-
 * metadata-document §8.6: never a special-use address of RFC 6890). Pure: the fetcher resolves a
 * host once, judges every address here, and connects only to an address judged here.
 *
 * IPv4: the RFC 6890 special-purpose registry (and later additions). IPv6: only global unicast
 * (2000::/3, RFC 4291 §2.4) minus its special-purpose blocks, so everything outside — unspecified,
 * loopback, IPv4-compatible, NAT64 (64:ff9b::/96), discard (100::/64), unique-local (fc00::/7),
 * link-local (fe80::/10), site-local, multicast — is refused without a list to forget an entry of.
 * An IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const SPECIAL_V4: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network" (RFC 791)'],
  ['10.0.0.0', 8, 'private-use (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space (RFC 6598)'],
  ['169.254.0.0', 16, 'link-local (RFC 3927)'],
  ['172.16.0.0', 12, 'private-use (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0', 24, 'documentation (RFC 5737)'],
  ['192.31.196.0', 24, 'AS112 (RFC 7535)'],
  ['192.52.193.0', 24, 'AMT (RFC 7450)'],
  ['192.88.99.0', 24, '6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0', 16, 'private-use (RFC 1918)'],
  ['192.175.48.0', 24, 'direct delegation AS112 (RFC 7534)'],
  ['198.18.0.0', 15, 'benchmarking (RFC 2544)'],
  ['198.51.100.0', 24, 'documentation (RFC 5737)'],
  ['203.0.113.0', 24, 'documentation (RFC 5737)'],
  ['224.0.0.0', 4, 'multicast (RFC 5771)'],
  ['240.0.0.0', 4, 'reserved (RFC 1112), including broadcast'],
];

// Special-purpose blocks inside 2000::/3 (RFC 6890 and the IANA IPv6 special-purpose registry).
const SPECIAL_V6_GLOBAL: ReadonlyArray<readonly [string, number, string]> = [
  ['2001::', 23, 'IETF protocol assignments (RFC 2928), including Teredo'],
  ['2001:db8::', 32, 'documentation (RFC 3849)'],
  ['2002::', 16, '6to4 (RFC 3056)'],
  ['3fff::', 20, 'documentation (RFC 9637)'],
];

function blockList(entries: ReadonlyArray<readonly [string, number, string]>, type: 'ipv4' | 'ipv6') {
  return entries.map(([network, prefix, name]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, name };
  });
}

const V4 = blockList(SPECIAL_V4, 'ipv4');
const V6 = blockList(SPECIAL_V6_GLOBAL, 'ipv6');
const V4_LOOPBACK = blockList([['127.0.0.0', 8, 'loopback']], 'ipv4')[0]!.list;
const V6_LOOPBACK = blockList([['::1', 128, 'loopback']], 'ipv6')[0]!.list;
const V6_GLOBAL_UNICAST = blockList([['2000::', 3, 'global unicast']], 'ipv6')[0]!.list;
const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * Why the server must not connect to `address`, or undefined when it may. Loopback is allowed
 * only with `allowLoopback` (a loopback issuer, draft §8.6: development and test deployments).
 */
export function specialAddressProblem(address: string, allowLoopback: boolean): string | undefined {
  const v4 = MAPPED.exec(address)?.[1] ?? address;
  if (isIPv4(v4)) {
    if (V4_LOOPBACK.check(v4, 'ipv4')) return allowLoopback ? undefined : `${address} is a loopback address`;
    const hit = V4.find(({ list }) => list.check(v4, 'ipv4'));
    return hit ? `${address} is a special-use address: ${hit.name}` : undefined;
  }
  if (!isIPv6(address)) return `${JSON.stringify(address)} is not an IP address`;
  if (V6_LOOPBACK.check(address, 'ipv6'))
    return allowLoopback ? undefined : `${address} is a loopback address`;
  if (!V6_GLOBAL_UNICAST.check(address, 'ipv6')) {
    return `${address} is a special-use address: not IPv6 global unicast (2000::/3)`;
  }
  const hit = V6.find(({ list }) => list.check(address, 'ipv6'));
  return hit ? `${address} is a special-use address: ${hit.name}` : undefined;
}
