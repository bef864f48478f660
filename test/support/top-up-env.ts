import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDNodeWallet } from 'ethers';
import { EVM_ACCOUNT_PATH } from '@app/chains';
import { DEVNET_ACCOUNTS, DevnetAccount } from './devnet';

// The public "abandon ... about" test mnemonic the suites' HD_EVM_XPUB comes from.
const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * anvil's default account #9 (funded with ETH on every devnet): the gas top-up suite's own
 * sweeper. A sweeper's nonce belongs to one sweep for good in the run's database, and every
 * chain starts nonces again: each sweep suite has a sweeper of its own (#3, #5-#8 are others').
 */
export const TOP_UP_SWEEPER: DevnetAccount = (() => {
  const wallet = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/9`);
  return { address: wallet.address, privateKey: wallet.privateKey };
})();

function writeJson(name: string, content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), `${name}-`)), `${name}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

/** The files a worker sweeping ETHEREUM by gas top-up reads (no delegate: no EIP-7702). */
export function topUpEnvironment(settings: Record<string, unknown> = {}): Record<string, string> {
  const xprv = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, EVM_ACCOUNT_PATH).extendedKey;
  return {
    HOT_WALLETS_FILE: writeJson('hot-wallets', {
      ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey },
    }),
    SWEEPER_KEYS_FILE: writeJson('sweepers', {
      ETHEREUM: { privateKey: TOP_UP_SWEEPER.privateKey },
    }),
    DEPOSIT_KEYS_FILE: writeJson('deposit-keys', { EVM: { xprv } }),
    TREASURY_FILE: writeJson('treasury', {
      ETHEREUM: {
        gasTopUp: true,
        minimumSweep: '1',
        maxGasPriceGwei: '1000',
        // Devnet ETH is worth nothing: the policy must not hold small test amounts back.
        nativeCoinPrice: '0.01',
        ...settings,
      },
    }),
  };
}
