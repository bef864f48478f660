/** Queue and job names in one place, so producers and processors cannot drift apart. */
export const QUEUES = {
  maintenance: 'maintenance',
  payouts: 'payouts',
  treasury: 'treasury',
  reconciliation: 'reconciliation',
} as const;

export const PAYOUT_JOBS = {
  /** Claim, sign and broadcast one payout; the job id is the payout id. */
  send: 'send-payout',
  /** Follow in-flight payouts of one network to the end (repeatable, per network). */
  track: 'track-payouts',
  /** Re-enqueue payouts whose send job was lost (repeatable). */
  reconcile: 'reconcile-payouts',
} as const;

export const TREASURY_JOBS = {
  /** Follow live sweeps of one network, then plan new ones (repeatable, per network). */
  sweep: 'sweep-network',
} as const;

export const RECONCILIATION_JOBS = {
  /** Books = chain over the addresses that moved since the last run (repeatable). */
  incremental: 'reconcile-incremental',
  /** Books = chain over every controlled address (repeatable). */
  full: 'reconcile-full',
  /** Booked EVM fees checked again at finalityBlocks, corrected after a reorg (repeatable). */
  finalizeFees: 'finalize-network-fees',
} as const;

export const MAINTENANCE_JOBS = {
  refillPayAddresses: 'refill-pay-addresses',
  purgeIdempotencyKeys: 'purge-idempotency-keys',
  expireSessions: 'expire-sessions',
  expireRefundDestinations: 'expire-refund-destinations',
} as const;
