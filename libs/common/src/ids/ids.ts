import { randomBase62 } from './base62';

/** Resource id prefixes. Ids are public and the hosted page is reachable by id alone. */
export const ID_PREFIX = {
  merchant: 'mer',
  apiKey: 'key',
  checkoutSession: 'cs',
  sessionTransaction: 'ctx',
  payAddress: 'addr',
  subMerchant: 'sm',
  payout: 'po',
  payoutBatch: 'pob',
  event: 'evt',
  webhookEndpoint: 'we',
  unmatchedTransfer: 'utx',
  refund: 're',
  sweep: 'sw',
  consoleUser: 'usr',
  invitation: 'inv',
  auditEntry: 'aud',
  operatorViewGrant: 'vg',
} as const;

export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

/** `<prefix>_` + 22 random base62 characters (130 bits): unguessable. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
