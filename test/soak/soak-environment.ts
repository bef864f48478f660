import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Wallet } from 'ethers';
import type { Devnet, DevnetAccount } from '../support/devnet';
import { writeHotWalletsFile } from '../support/payout-chain';
import { sweepEnvironment } from '../support/sweep-env';
import { tronSweepEnvironment } from '../support/tron-sweep-env';

/** One JSON file with the entries of every file given (one per network or chain family). */
function mergedJsonFile(name: string, paths: string[]): string {
  const merged = Object.assign({}, ...paths.map((path) => JSON.parse(readFileSync(path, 'utf8'))));
  const path = join(mkdtempSync(join(tmpdir(), `${name}-`)), `${name}.json`);
  writeFileSync(path, JSON.stringify(merged, null, 2));
  return path;
}

export interface SoakChains {
  devnet: Devnet;
  tronUrl: string;
  hot: Wallet | { address: string; privateKey: string };
  sweeper: DevnetAccount;
  treasury: string;
  tronHotKey: string;
  stakingKey: string;
}

/**
 * One worker for both chains, as production runs it: ETHEREUM on anvil (a SweepDelegate for this
 * run's hot wallet, sweeper and treasury) and TRON on the fake node (the staking account sweeps),
 * each with its hot wallet. Returns the delegate, the NETWORKS_FILE content and the variables.
 */
export async function soakEnvironment(chains: SoakChains) {
  const { devnet, tronUrl, hot, sweeper, treasury } = chains;
  const evm = await sweepEnvironment(
    devnet,
    // An address a reverted batch left waits retryBackoffSeconds (60 by default) before the
    // next try: a few seconds here, or the run waits a minute on every reverting block.
    { batchSize: 10, treasuryAddress: treasury, retryBackoffSeconds: 3 },
    [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
    sweeper,
    { address: hot.address, privateKey: hot.privateKey },
  );
  const tron = tronSweepEnvironment(chains.stakingKey, { retryBackoffSeconds: 3 });
  // Fees become final past the nemesis' deepest reorg (5 blocks) plus its hold (6): 16 blocks,
  // 16 s of the devnet's 1 s blocks (docs/treasury.md, "Fees become final").
  const networks = JSON.parse(devnet.networksFileJson({ confirmations: 1, finalityBlocks: 16 }));
  networks.networks.TRON = { rpcUrls: [tronUrl], publicRpcUrl: tronUrl, confirmations: 1 };
  const files = (name: string) => [evm.environment[name], tron[name]];
  return {
    delegate: evm.delegate,
    networksFileJson: JSON.stringify(networks, null, 2),
    variables: {
      HOT_WALLETS_FILE: writeHotWalletsFile({
        ETHEREUM: hot.privateKey,
        TRON: chains.tronHotKey,
      }),
      SWEEPER_KEYS_FILE: mergedJsonFile('sweepers', files('SWEEPER_KEYS_FILE')),
      DEPOSIT_KEYS_FILE: mergedJsonFile('deposit-keys', files('DEPOSIT_KEYS_FILE')),
      TREASURY_FILE: mergedJsonFile('treasury', files('TREASURY_FILE')),
      WATCH_NETWORKS: 'ETHEREUM,TRON',
      // The worker's own clocks, short: a test waits on them, production on minutes.
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      TREASURY_SWEEP_INTERVAL_MS: '300',
      PAYOUT_TRACK_INTERVAL_MS: '300',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_REPLACE_AFTER_MS: '6000',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5,TRON=1',
      PAYOUT_REVIEW_THRESHOLD: '100000',
      FEE_PERCENT: '1',
      // Each family's pool: 500 (the suites' default) would cost the first boot 1,000 derivations
      // for some 200 sessions; the API derives on the spot what the pool lacks.
      PAY_ADDRESS_POOL_TARGET: '50',
    } as Record<string, string>,
  };
}
