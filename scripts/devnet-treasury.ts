import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { id, parseEther, toQuantity, Wallet, zeroPadValue } from 'ethers';
import { DEVNET_ACCOUNTS, deploySweepDelegate, Devnet } from '../test/support/devnet';
import { DEVNET_SWEEPER, DEVNET_TREASURY } from '../test/support/sweep-env';

/*
 * A devnet made ready to sweep ETHEREUM (npm run devnet / demo, bench:treasury): a SweepDelegate
 * for the hot wallet, the sweeper and the treasury, the settings files a sweeping worker reads,
 * and opening balances that the books can know. anvil gives its default accounts 10,000 ETH at
 * genesis, a balance no transaction ever moved, so treasury:book-funding could never book it and
 * treasury:reconcile would report it as a difference forever. The service's wallets start empty
 * here and are funded by ordinary transactions, which the caller books once the worker has
 * registered the wallets.
 */

const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
/** Ether each wallet of the service is funded with: far more than the devnet's gas ever costs. */
const WALLET_FUNDING_ETH = '100';

export interface DevnetTreasuryOptions {
  /** Where the files are written. */
  directory: string;
  /** Policy fields of the network's TREASURY_FILE entry, beside the delegate's address. */
  settings: Record<string, unknown>;
  /**
   * The xprv of the deposit addresses, written to DEPOSIT_KEYS_FILE. None: the sandbox worker
   * derives the keys from the development wallet (libs/treasury/src/sweeps/sweep-keys.ts), so
   * no copy of that secret is written.
   */
  depositXprv?: string;
}

export interface DevnetTreasury {
  delegate: string;
  /** Book each with `treasury:book-funding --network ETHEREUM --tx <hash>` after the worker starts. */
  fundingTransactions: string[];
  /** TREASURY_FILE, SWEEPER_KEYS_FILE and DEPOSIT_KEYS_FILE (when written). */
  environment: Record<string, string>;
}

export async function prepareDevnetTreasury(
  devnet: Devnet,
  options: DevnetTreasuryOptions,
): Promise<DevnetTreasury> {
  const delegate = await deploySweepDelegate(devnet, {
    sweeper: DEVNET_SWEEPER.address,
    hotWallet: DEVNET_ACCOUNTS.hotWallet.address,
    treasury: DEVNET_TREASURY,
    tokens: [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
  });
  const wallets = [DEVNET_ACCOUNTS.hotWallet.address, DEVNET_SWEEPER.address, DEVNET_TREASURY];
  for (const wallet of wallets) {
    await devnet.provider.send('anvil_setBalance', [wallet, toQuantity(0)]);
  }
  const fundingTransactions = [
    ...(await tokenMints(devnet, DEVNET_ACCOUNTS.hotWallet.address)),
    await sendEther(devnet, DEVNET_ACCOUNTS.hotWallet.address),
    await sendEther(devnet, DEVNET_SWEEPER.address),
  ];
  const write = (name: string, content: unknown) => {
    const path = join(options.directory, name);
    writeFileSync(path, JSON.stringify(content, null, 2) + '\n');
    return path;
  };
  const environment: Record<string, string> = {
    TREASURY_FILE: write('treasury.json', {
      ETHEREUM: { sweepDelegate: delegate, treasuryAddress: DEVNET_TREASURY, ...options.settings },
    }),
    // anvil's account #3: a public test key, never a real secret; not the payout hot wallet.
    SWEEPER_KEYS_FILE: write('sweepers.json', {
      ETHEREUM: { privateKey: DEVNET_SWEEPER.privateKey },
    }),
  };
  if (options.depositXprv) {
    environment.DEPOSIT_KEYS_FILE = write('deposit-keys.json', {
      EVM: { xprv: options.depositXprv },
    });
  }
  return { delegate, fundingTransactions, environment };
}

/** The devnet's mints of USDT and USDC to `holder` at its start (Transfer logs from 0x0). */
async function tokenMints(devnet: Devnet, holder: string): Promise<string[]> {
  const logs = (await devnet.provider.send('eth_getLogs', [
    {
      address: [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
      topics: [TRANSFER_TOPIC, zeroPadValue('0x', 32), zeroPadValue(holder, 32)],
      fromBlock: '0x0',
      toBlock: 'latest',
    },
  ])) as Array<{ transactionHash: string }>;
  return [...new Set(logs.map((log) => log.transactionHash.toLowerCase()))];
}

/** Ether from anvil's account #0 (outside the service) to one of its wallets, mined. */
async function sendEther(devnet: Devnet, to: string): Promise<string> {
  const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
  const response = await deployer.sendTransaction({ to, value: parseEther(WALLET_FUNDING_ETH) });
  const receipt = await response.wait();
  if (!receipt || receipt.status !== 1) throw new Error(`Funding ${to} failed.`);
  return receipt.hash.toLowerCase();
}
