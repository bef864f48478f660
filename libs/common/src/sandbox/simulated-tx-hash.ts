import { randomBytes } from 'node:crypto';

/**
 * Transaction hashes of the sandbox's simulated transfers and payouts start with this: no chain's
 * hash does (EVM hashes are `0x` + 64 hex, TRON's 64 hex), so one can never collide with a real
 * one. Everything that acts on the chain because a transfer arrived (the deposit watcher's reorg
 * and confirmation checks, chain resets, the sweep planner) leaves them out by it.
 */
export const SIMULATED_TX_HASH_PREFIX = 'sim_';

export function newSimulatedTxHash(): string {
  return SIMULATED_TX_HASH_PREFIX + randomBytes(30).toString('hex');
}

/** SQL that keeps only real transfers of the table aliased `alias` (or unaliased). */
export function realTransfersOnly(alias?: string): string {
  return `${alias ? `${alias}.` : ''}tx_hash NOT LIKE '${SIMULATED_TX_HASH_PREFIX}%'`;
}
