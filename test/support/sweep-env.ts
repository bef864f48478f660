import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDNodeWallet } from 'ethers';
import type { DataSource } from 'typeorm';
import { EVM_ACCOUNT_PATH } from '@app/chains';
import { DEVNET_ACCOUNTS, deploySweepDelegate, Devnet, DevnetAccount } from './devnet';

// The public "abandon ... about" test mnemonic: the xpubs every suite derives pay addresses from
// (test/setup/test-database.ts). Its private side is what a sweeping worker holds.
const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

// anvil's default accounts #3 and #4 (public "test ... junk" mnemonic): a sweeper with ETH for
// gas, and a treasury address.
export const DEVNET_SWEEPER: DevnetAccount = {
  address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
};
export const DEVNET_TREASURY = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * anvil's default account #index (funded with ETH on every devnet): a sweeper of a suite's own.
 * The sweeps of a test run share one database, where a sweeper's nonce belongs to one sweep for
 * good; every chain starts the nonces again, so each suite sweeps with its own sweeper.
 */
export function devnetSweeper(index: number): DevnetAccount {
  const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
  return { address: wallet.address, privateKey: wallet.privateKey };
}

export interface SweepFiles {
  delegate: string;
  environment: Record<string, string>;
}

function writeJson(name: string, content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), `${name}-`)), `${name}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

/**
 * A devnet ready to sweep ETHEREUM: a SweepDelegate deployed for the devnet's hot wallet, the
 * sweeper and the treasury, and the four files a sweeping worker reads, as environment variables.
 */
export async function sweepEnvironment(
  devnet: Devnet,
  settings: Record<string, unknown> = {},
  // The delegate's whitelist: another token may stand in as the network's USDT.
  tokens: string[] = [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract],
  sweeper: DevnetAccount = DEVNET_SWEEPER,
  // A suite whose books must hold every unit of the hot wallet funds one of its own.
  hotWallet: DevnetAccount = DEVNET_ACCOUNTS.hotWallet,
): Promise<SweepFiles> {
  const delegate = await deploySweepDelegate(devnet, {
    sweeper: sweeper.address,
    hotWallet: hotWallet.address,
    // The delegate's TREASURY() must be the settings' treasuryAddress, or sweeping is refused.
    treasury: (settings.treasuryAddress as string | undefined) ?? DEVNET_TREASURY,
    tokens,
  });
  const xprv = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, EVM_ACCOUNT_PATH).extendedKey;
  return {
    delegate,
    environment: {
      HOT_WALLETS_FILE: writeJson('hot-wallets', {
        ETHEREUM: { privateKey: hotWallet.privateKey },
      }),
      SWEEPER_KEYS_FILE: writeJson('sweepers', {
        ETHEREUM: { privateKey: sweeper.privateKey },
      }),
      DEPOSIT_KEYS_FILE: writeJson('deposit-keys', { EVM: { xprv } }),
      TREASURY_FILE: writeJson('treasury', {
        ETHEREUM: {
          sweepDelegate: delegate,
          treasuryAddress: DEVNET_TREASURY,
          minimumSweep: '1',
          maxGasPriceGwei: '1000',
          // Devnet ETH is worth nothing: at the mainnet default the policy finds small test
          // amounts too dear to sweep (as it should on Ethereum).
          nativeCoinPrice: '0.01',
          ...settings,
        },
      }),
    },
  };
}

/**
 * A sweep suite on a devnet of its own: no earlier suite's sweep may still be in flight (it would
 * carry another chain's nonce into this one). The suite's own sweeper (devnetSweeper) starts its
 * nonce lane from the new chain's count when the worker registers it.
 */
export async function startSweepsOnNewChain(
  dataSource: DataSource,
  network = 'ETHEREUM',
): Promise<void> {
  const [{ live }]: Array<{ live: number }> = await dataSource.query(
    `SELECT count(*)::int AS live FROM sweeps WHERE network = $1 AND status = 'Processing'`,
    [network],
  );
  if (live !== 0) throw new Error(`${live} ${network} sweeps of earlier suites in flight`);
}
