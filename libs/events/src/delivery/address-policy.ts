import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Local development and tests only: also allow loopback and private networks. */
  allowPrivate: boolean;
}

export const NOT_AN_IP_ADDRESS = 'not an IP address';

// Ranges a developer's own receiver can sit in. Everything else ipaddr.js knows (link-local,
// unspecified, multicast, broadcast, reserved, documentation, NAT64, 6to4, Teredo...) is refused
// under every policy: those either reach this host or cloud metadata, or are not real endpoints.
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

// Metadata services that live inside ranges allowPrivate lets through: AWS's IPv6 IMDS sits in
// unique local space, Alibaba Cloud's in carrier-grade NAT space. They hand out credentials.
const CLOUD_METADATA_ADDRESSES = [ipaddr.parse('fd00:ec2::254'), ipaddr.parse('100.100.100.200')];

// 2000::/3 is the only IPv6 space allocated for global unicast. ipaddr.js calls every address it
// has no name for "unicast", including IPv4-compatible ::a.b.c.d, which some stacks route to IPv4.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

// Phrases carry their article so callers can write "url resolves to a loopback address".
const RANGE_PHRASES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a unique local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  linkLocal: 'a link-local address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

/**
 * What kind of address makes a connection to `ip` refused, as a phrase with its article
 * ("a loopback address"), NOT_AN_IP_ADDRESS for text that is no IP, or null when allowed.
 */
export function refusedAddressKind(ip: string, policy: AddressPolicy): string | null {
  // Only the canonical forms Node itself treats as IPs: ipaddr.js would also read "0x7f.1" or
  // "0177.0.0.1", whose meaning differs between parsers.
  if (isIP(ip) === 0) return NOT_AN_IP_ADDRESS;
  // process() unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) to the IPv4 it reaches.
  const address = ipaddr.process(ip);
  const range = address.range();

  if (CLOUD_METADATA_ADDRESSES.some((metadata) => sameAddress(metadata, address))) {
    return 'a cloud metadata address';
  }
  if (range === 'unicast') {
    if (address.kind() === 'ipv6' && !address.match(IPV6_GLOBAL_UNICAST)) {
      return 'a non-global IPv6 address';
    }
    return null;
  }
  if (policy.allowPrivate && PRIVATE_RANGES.has(range)) return null;
  return RANGE_PHRASES[range] ?? `a special-purpose address (${range})`;
}

/** null when a connection to this IP (v4 or v6 text) is allowed, else a short reason like "loopback address 127.0.0.1". */
export function addressRefusal(ip: string, policy: AddressPolicy): string | null {
  const kind = refusedAddressKind(ip, policy);
  if (kind === null || kind === NOT_AN_IP_ADDRESS) return kind;
  return `${withoutArticle(kind)} ${ip}`;
}

export function withoutArticle(phrase: string): string {
  return phrase.replace(/^an? /, '');
}

function sameAddress(a: ipaddr.IPv4 | ipaddr.IPv6, b: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  // match() compares the bits alone, so a zone id (fd00:ec2::254%eth0) cannot slip past.
  return a.kind() === b.kind() && a.match(b, a.kind() === 'ipv4' ? 32 : 128);
}
