import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { AddressPolicy, NOT_AN_IP_ADDRESS, refusedAddressKind } from './address-policy';

/** Every address a hostname resolves to, in the resolver's own order. */
export type Resolver = (hostname: string) => Promise<string[]>;

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const resolveAllAddresses: Resolver = async (hostname) => {
  const addresses = await dns.lookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address }) => address);
};

/** The IP a URL names literally (IPv6 without its brackets), or null when its host is a name. */
export function ipLiteralHost(url: URL): string | null {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // WHATWG already rewrote every IPv4 spelling (2130706433, 0x7f.1) to dotted decimal.
  return isIP(hostname) === 0 ? null : hostname;
}

/**
 * Validates a webhook endpoint url when it is created or changed. `reason` is a sentence for the
 * API caller about the `url` parameter. Delivery re-checks the address at every connection, since
 * DNS can change after this check.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: AddressPolicy,
  resolve: Resolver = resolveAllAddresses,
): Promise<UrlCheck> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return refuse(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters long.`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('url must be an absolute URL, such as https://example.com/webhooks.');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return refuse(policy.allowPrivate ? 'url must use http or https.' : 'url must use https.');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('url must not contain a username or password.');
  }
  // An empty fragment ("...#") leaves url.hash empty, but href keeps the '#'.
  if (url.href.includes('#')) return refuse('url must not contain a fragment (#...).');

  const literal = ipLiteralHost(url);
  if (literal !== null) {
    const kind = refusedAddressKind(literal, policy);
    return kind === null
      ? { ok: true, url: url.href }
      : refuse(addressSentence(kind, literal, policy));
  }

  let addresses: string[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return refuse(`url host ${url.hostname} could not be resolved.`);
  // Every address counts: the connection may go to any of them.
  for (const address of addresses) {
    const kind = refusedAddressKind(address, policy);
    if (kind === NOT_AN_IP_ADDRESS) {
      return refuse(`url host ${url.hostname} could not be resolved.`);
    }
    if (kind !== null) return refuse(addressSentence(kind, address, policy));
  }
  return { ok: true, url: url.href };
}

function addressSentence(kind: string, ip: string, policy: AddressPolicy): string {
  const allowed = policy.allowPrivate
    ? 'public, private and loopback addresses'
    : 'public addresses';
  return `url resolves to ${kind} (${ip}); webhooks are delivered only to ${allowed}.`;
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}
