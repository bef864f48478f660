import { randomBytes } from 'node:crypto';
import { encodeBase62 } from './base62';

/** Resource id prefixes. Ids are public and the hosted page is reachable by id alone. */
export const ID_PREFIX = {
  merchant: 'mer',
  apiKey: 'key',
  checkoutSession: 'cs',
  sessionTransaction: 'ctx',
  payAddress: 'addr',
  subMerchant: 'sm',
} as const;

export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

/** `<prefix>_` + 128 random bits in base62 (22 characters): unguessable. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${encodeBase62(randomBytes(16))}`;
}

/** Cheap shape check before a lookup; a wrong shape is simply "not found". */
export function looksLikeId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9A-Za-z]{22}$`).test(value);
}
