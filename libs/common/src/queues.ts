/** Queue and job names in one place, so producers and processors cannot drift apart. */
export const QUEUES = {
  maintenance: 'maintenance',
} as const;

export const MAINTENANCE_JOBS = {
  refillPayAddresses: 'refill-pay-addresses',
  purgeIdempotencyKeys: 'purge-idempotency-keys',
} as const;
