import ipaddr from 'ipaddr.js';
import { ValidateBy, ValidationOptions } from 'class-validator';

/**
 * Which peers may tell the API the client's address in X-Forwarded-For: Express's `trust proxy`.
 * `false` ignores the header (the default: the peer is the client), a number trusts that many
 * proxy hops, a list trusts peers in those addresses or ranges.
 */
export type TrustProxySetting = false | number | string[];

// Named ranges Express understands besides addresses and CIDRs.
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 10;

export const TRUST_PROXY_MESSAGE =
  'TRUST_PROXY must be a number of proxy hops (0-10), or a comma list of proxy addresses, CIDR ' +
  'ranges, "loopback", "linklocal" or "uniquelocal"; "true" is refused because it lets any ' +
  'client choose its own address.';

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  return entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
}

export function isTrustProxyValue(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (value === 'false') return true;
  if (/^[0-9]+$/.test(value)) return Number(value) <= MAX_HOPS;
  return value.split(',').every((entry) => isAddressOrRange(entry.trim()));
}

/** Checked by the environment validation; an unset variable means no proxy is trusted. */
export function IsTrustProxyValue(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    { name: 'isTrustProxyValue', validator: { validate: (value) => isTrustProxyValue(value) } },
    options,
  );
}

/** The validated variable as Express's setting. */
export function parseTrustProxy(value: string | undefined): TrustProxySetting {
  if (value === undefined || value === 'false' || value === '0') return false;
  if (/^[0-9]+$/.test(value)) return Number(value);
  return value.split(',').map((entry) => entry.trim());
}
