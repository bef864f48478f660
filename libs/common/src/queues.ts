/** Queue and job names in one place, so producers and processors cannot drift apart. */
export const QUEUES = {
  maintenance: 'maintenance',
  deposits: 'deposits',
} as const;

export const DEPOSIT_JOBS = {
  scanNetwork: 'scan-network',
} as const;

export const MAINTENANCE_JOBS = {
  refillPayAddresses: 'refill-pay-addresses',
  purgeIdempotencyKeys: 'purge-idempotency-keys',
  expireSessions: 'expire-sessions',
} as const;
