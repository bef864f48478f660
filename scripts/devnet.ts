import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadNetworkRegistry } from '../libs/chains/src/networks/network-registry';
import { loadTreasurySettings } from '../libs/treasury/src/sweeps/treasury-settings';
import {
  DEVNET_ACCOUNTS,
  DEVNET_CHAIN_ID,
  DEVNET_TOKEN_FUNDING,
  devnetNetworksFile,
  Devnet,
  DevnetTokens,
  startDevnet,
} from '../test/support/devnet';
import { DEVNET_SWEEPER } from '../test/support/sweep-env';
import { DevnetTreasury, prepareDevnetTreasury } from './devnet-treasury';

// `npm run devnet`: a local Ethereum for development. anvil with a block every second (like a
// real chain, so confirmations advance on their own), USDT and USDC deployed, the payer and the
// payout hot wallet funded, a SweepDelegate deployed for sweeping, and the files the API and
// worker need written to .devnet/.

const ROOT = join(__dirname, '..');
const DEVNET_DIR = join(ROOT, '.devnet');
const BLOCK_TIME_SECONDS = 1;
// Demo thresholds: any paid session is worth sweeping, at once. Devnet ETH is worth nothing, so
// at the mainnet default (6,000 tokens an ETH) the policy would find small test amounts too dear
// to sweep, as it should on Ethereum.
const DEMO_SWEEP_SETTINGS = { minimumSweep: '1', nativeCoinPrice: '0.01' };
const DEMO_SWEEP_INTERVAL_MS = 5_000;

const DEVNET_FILES = {
  description: join(DEVNET_DIR, 'devnet.json'),
  networks: join(DEVNET_DIR, 'networks.json'),
  environment: join(DEVNET_DIR, 'devnet.env'),
  // anvil's well-known account #2: a public test key, never a real secret.
  hotWallets: join(DEVNET_DIR, 'hot-wallets.json'),
  anvilLog: join(DEVNET_DIR, 'anvil.log'),
};

async function main(): Promise<void> {
  const port = readPort(process.env.DEVNET_PORT ?? '8545');
  mkdirSync(DEVNET_DIR, { recursive: true });
  writeFileSync(DEVNET_FILES.anvilLog, '');
  const devnet = await startDevnet({
    port,
    blockTime: BLOCK_TIME_SECONDS,
    logFile: DEVNET_FILES.anvilLog,
  });
  stopOnSignal(devnet);
  try {
    const treasury = await prepareDevnetTreasury(devnet, {
      directory: DEVNET_DIR,
      settings: DEMO_SWEEP_SETTINGS,
    });
    writeDevnetFiles(devnet.rpcUrl, devnet.tokens, treasury);
    // The service must accept what we wrote: parse it with the registry loader it uses itself.
    checkNetworksFile(devnet.tokens, treasury);
    printSummary(devnet, treasury);
  } catch (error) {
    await devnet.stop();
    throw error;
  }
}

function writeDevnetFiles(rpcUrl: string, tokens: DevnetTokens, treasury: DevnetTreasury): void {
  const description = {
    rpc_url: rpcUrl,
    chain_id: DEVNET_CHAIN_ID,
    network: 'ETHEREUM',
    tokens,
    payer_address: DEVNET_ACCOUNTS.payer.address,
    payer_private_key: DEVNET_ACCOUNTS.payer.privateKey,
    hot_wallet_address: DEVNET_ACCOUNTS.hotWallet.address,
    hot_wallet_private_key: DEVNET_ACCOUNTS.hotWallet.privateKey,
    sweeper_address: DEVNET_SWEEPER.address,
    sweep_delegate: treasury.delegate,
    // The service's opening balances: book them once the worker has registered its wallets.
    funding_transactions: treasury.fundingTransactions,
  };
  writeJson(DEVNET_FILES.description, description);
  writeJson(DEVNET_FILES.networks, devnetNetworksFile(rpcUrl, tokens));
  writeJson(DEVNET_FILES.hotWallets, {
    ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey },
  });
  const environment = [
    `NETWORKS_FILE=${DEVNET_FILES.networks}`,
    'WATCH_NETWORKS=ETHEREUM',
    `HOT_WALLETS_FILE=${DEVNET_FILES.hotWallets}`,
    `DEVNET_RPC_URL=${rpcUrl}`,
    ...Object.entries(treasury.environment).map(([name, value]) => `${name}=${value}`),
    `TREASURY_SWEEP_INTERVAL_MS=${DEMO_SWEEP_INTERVAL_MS}`,
  ];
  writeFileSync(DEVNET_FILES.environment, environment.join('\n') + '\n');
}

function checkNetworksFile(tokens: DevnetTokens, treasury: DevnetTreasury): void {
  const registry = loadNetworkRegistry({ env: 'sandbox', networksFile: DEVNET_FILES.networks });
  const sweeping = loadTreasurySettings(treasury.environment.TREASURY_FILE, registry);
  if (sweeping.get('ETHEREUM')?.sweepDelegate?.toLowerCase() !== treasury.delegate.toLowerCase()) {
    throw new Error('The treasury settings read back another ETHEREUM delegate.');
  }
  const ethereum = registry.get('ETHEREUM');
  const matches =
    ethereum.chainId === DEVNET_CHAIN_ID &&
    ethereum.tokens.USDT?.contract === tokens.USDT.contract &&
    ethereum.tokens.USDC?.contract === tokens.USDC.contract;
  if (!matches) throw new Error('The network registry read back a different ETHEREUM network.');
}

function printSummary(devnet: Devnet, treasury: DevnetTreasury): void {
  const show = (path: string) => relative(process.cwd(), path);
  console.log(
    [
      `Devnet running: ${devnet.rpcUrl} (chain id ${DEVNET_CHAIN_ID}, a block every ${BLOCK_TIME_SECONDS} s)`,
      `  USDT        ${devnet.tokens.USDT.contract}`,
      `  USDC        ${devnet.tokens.USDC.contract}`,
      `  payer       ${DEVNET_ACCOUNTS.payer.address} (${DEVNET_TOKEN_FUNDING} of each token)`,
      `  hot wallet  ${DEVNET_ACCOUNTS.hotWallet.address} (${DEVNET_TOKEN_FUNDING} of each token, 100 ETH)`,
      `  sweeper     ${DEVNET_SWEEPER.address} (100 ETH), SweepDelegate ${treasury.delegate}`,
      `Wrote ${show(DEVNET_FILES.description)}, ${show(DEVNET_FILES.networks)}, ${show(DEVNET_FILES.environment)}`,
      `Use it: set -a; . ${show(DEVNET_FILES.environment)}; set +a   then start the API and worker.`,
      'Pay a session: npm run devnet:pay -- <address> <amount> [USDT|USDC]',
      `Book the wallets' opening balances once the worker runs (npm run demo does): ` +
        'treasury:book-funding --network ETHEREUM --tx <each of funding_transactions in devnet.json>',
      'Ctrl-C stops the devnet (its chain is not kept).',
    ].join('\n'),
  );
}

function stopOnSignal(devnet: Devnet): void {
  const stop = () => {
    devnet.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function readPort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`DEVNET_PORT must be a port number, got ${JSON.stringify(value)}.`);
  }
  return port;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
