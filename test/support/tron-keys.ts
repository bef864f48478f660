import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';

/**
 * Fixed test keys (hashes of labels): they never hold funds anywhere. (tron-sweep-env.ts keeps
 * its own copies for the sweep and soak suites; it loads the CLI module, these do not.)
 */
export const tronTestKey = (label: string): string =>
  createHash('sha256').update(label).digest('hex');
export const tronAddressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;

/** One TRX in sun. */
export const TRX = 1_000_000n;

/** The USDT contract the TRON suites' networks file names (the testnet's). */
export const TRON_USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
