import { NetworkConfig } from '@app/chains';

/** Never poll a node more often than this (4 head requests a second per network). */
export const MIN_POLL_INTERVAL_MS = 250;

/*
 * Average block times of the chains the registry knows, by chain id (mainnet and testnet). BSC
 * has produced a block every 0.75 s since its Maxwell upgrade (2025); TRON every 3 s.
 */
const BLOCK_TIME_MS: Record<number, number> = {
  1: 12_000,
  11155111: 12_000,
  56: 750,
  97: 750,
  137: 2_000,
  80002: 2_000,
  42161: 250,
  421614: 250,
  8453: 2_000,
  84532: 2_000,
  10: 2_000,
  11155420: 2_000,
};
const TRON_BLOCK_TIME_MS = 3_000;

/** The network's average block time, or undefined for a chain we do not know (a devnet). */
export function blockTimeMs(network: NetworkConfig): number | undefined {
  if (network.chainFamily === 'TRON') return TRON_BLOCK_TIME_MS;
  return BLOCK_TIME_MS[network.chainId];
}

/** No new block for far longer than the chain takes: the URL answering may be stuck. */
const STALE_HEAD_MIN_MS = 60_000;
const STALE_HEAD_BLOCKS = 10;

/**
 * How long a head may stay unchanged before the watcher asks another RPC URL: ten blocks of the
 * chain's pace, and never less than a minute (so a devnet or a slow patch of a chain costs at most
 * one call to another URL a minute).
 */
export function staleHeadMs(network: NetworkConfig): number {
  return Math.max(STALE_HEAD_MIN_MS, STALE_HEAD_BLOCKS * (blockTimeMs(network) ?? 0));
}

/**
 * How often the watcher asks a network for its head: a quarter of a block, so a new block is seen
 * within ~25 % of its interval, never faster than MIN_POLL_INTERVAL_MS and never slower than
 * `maxIntervalMs` (DEPOSIT_SCAN_INTERVAL_MS). A chain of unknown pace (a devnet) is polled at the
 * fastest rate. Asking for the head is one cheap call; a full tick runs only when it moved.
 */
export function pollIntervalMs(network: NetworkConfig, maxIntervalMs: number): number {
  const blockTime = blockTimeMs(network);
  const quarter = blockTime === undefined ? MIN_POLL_INTERVAL_MS : blockTime / 4;
  return Math.round(
    Math.min(
      Math.max(quarter, MIN_POLL_INTERVAL_MS),
      Math.max(maxIntervalMs, MIN_POLL_INTERVAL_MS),
    ),
  );
}
