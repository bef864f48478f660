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

/** How much DNS work URL checks may do at once, and for how long each. */
export interface ResolverBounds {
  concurrency: number;
  timeoutMs: number;
}

/**
 * `resolve` with at most `concurrency` lookups running at once, each given up after `timeoutMs`
 * (its wait for a turn included). getaddrinfo runs on libuv's thread pool (4 threads, shared with
 * fs, crypto and zlib), so a burst of slow lookups would stall the whole process. A lookup given
 * up keeps its turn until getaddrinfo returns: it still holds its thread.
 */
export function boundedResolver(resolve: Resolver, bounds: ResolverBounds): Resolver {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    while (running < bounds.concurrency && waiting.length > 0) waiting.shift()!();
  };
  return (hostname) =>
    new Promise<string[]>((resolved, failed) => {
      let finished = false;
      const finish = (settle: () => void) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        settle();
      };
      const start = () => {
        running += 1;
        resolve(hostname)
          .then(
            (addresses) => finish(() => resolved(addresses)),
            (error: unknown) => finish(() => failed(error)),
          )
          .finally(() => {
            running -= 1;
            next();
          });
      };
      const timer = setTimeout(() => {
        const queued = waiting.indexOf(start);
        if (queued >= 0) waiting.splice(queued, 1);
        finish(() => failed(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })));
      }, bounds.timeoutMs);
      waiting.push(start);
      next();
    });
}

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

  // The caller wrote this address: naming it and its kind tells them nothing new.
  const literal = ipLiteralHost(url);
  if (literal !== null) {
    const kind = refusedAddressKind(literal, policy);
    return kind === null
      ? { ok: true, url: url.href }
      : refuse(`url resolves to ${kind} (${literal}); ${allowedSentence(policy)}`);
  }

  let addresses: string[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return refuse(`url host ${url.hostname} could not be resolved.`);
  // Every address counts: the connection may go to any of them.
  const kinds = addresses.map((address) => refusedAddressKind(address, policy));
  if (kinds.includes(NOT_AN_IP_ADDRESS)) {
    return refuse(`url host ${url.hostname} could not be resolved.`);
  }
  // Neither the address nor its kind: our resolver's answers about names the caller chose would
  // map our internal network for them (a DNS oracle).
  if (kinds.some((kind) => kind !== null)) {
    return refuse(
      `url host ${url.hostname} resolves to a private or reserved address; ${allowedSentence(policy)}`,
    );
  }
  return { ok: true, url: url.href };
}

function allowedSentence(policy: AddressPolicy): string {
  const allowed = policy.allowPrivate
    ? 'public, private and loopback addresses'
    : 'public addresses';
  return `webhooks are delivered only to ${allowed}.`;
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}
