import { Inject, Injectable, Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  AccountPrivateKey,
  CHAIN_FAMILIES,
  ChainFamily,
  HdWallet,
  HotWalletKey,
  NetworkName,
  NetworkRegistry,
} from '@app/chains';
import { loadHotWallets } from '@app/payouts';
import { loadTreasurySettings, NetworkTreasurySettings } from './treasury-settings';

/** DEPOSIT_KEYS_FILE: `{"EVM": {"xprv": "xprv..."}, "TRON": {"xprv": "xprv..."}}`. */
type DepositKeysFile = Partial<Record<ChainFamily, { xprv: string }>>;

export class SweepKeysError extends Error {}

// The sandbox's development wallet (libs/chains/src/hd/development-keys.ts) keeps its mnemonic.
const DEVELOPMENT_WALLET_FILE = 'dev-hd-wallet.json';

/**
 * What the sweeping worker holds: the deposit accounts' private keys (which must match the xpubs
 * the API derives pay addresses from), one sweeper key per network, and the per-network settings.
 * Nothing here is loaded by the API. A network sweeps only when all three are present.
 */
@Injectable()
export class SweepKeys {
  private readonly logger = new Logger(SweepKeys.name);
  private readonly accounts = new Map<ChainFamily, AccountPrivateKey>();
  private readonly sweepers: Map<NetworkName, HotWalletKey>;
  readonly settings: Map<NetworkName, NetworkTreasurySettings>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly networks: NetworkRegistry,
    private readonly hdWallet: HdWallet,
    private readonly dataSource: DataSource,
  ) {
    this.settings = loadTreasurySettings(config.treasury.file, networks);
    this.sweepers = config.treasury.sweeperKeysFile
      ? loadHotWallets(config.treasury.sweeperKeysFile, networks, 'SWEEPER_KEYS_FILE')
      : new Map();
    this.loadAccounts(config);
  }

  /** The sweeper of a network that can sweep (settings, sweeper key and deposit key present). */
  sweeperFor(network: NetworkName): HotWalletKey | undefined {
    const family = this.networks.get(network).chainFamily;
    if (!this.settings.has(network) || !this.accounts.has(family)) return undefined;
    return this.sweepers.get(network);
  }

  sweepingNetworks(): NetworkName[] {
    return [...this.settings.keys()].filter((network) => this.sweeperFor(network));
  }

  /** Hex private key of the deposit address at `index`; only for a sweeping network's family. */
  depositPrivateKey(family: ChainFamily, index: number): string {
    const account = this.accounts.get(family);
    if (!account) throw new SweepKeysError(`No deposit account key for ${family}.`);
    return account.privateKeyAt(index);
  }

  /** The fingerprint pay addresses of the configured xpub are stored under. */
  fingerprint(family: ChainFamily): string {
    return this.hdWallet.accountFor(family).fingerprint;
  }

  /** At the worker's start: the sweeper and treasury addresses reconciliation must count. */
  async register(): Promise<void> {
    for (const network of this.settings.keys()) {
      const sweeper = this.sweepers.get(network);
      const treasury = this.settings.get(network)?.treasuryAddress;
      const rows: Array<[string, string]> = [];
      if (sweeper) rows.push(['sweeper', sweeper.address]);
      if (treasury) rows.push(['treasury', treasury]);
      for (const [role, address] of rows) {
        // A new sweeper key starts its own nonce lane: the node's count, read at the next sweep.
        await this.dataSource.query(
          `INSERT INTO treasury_wallets (network, role, address) VALUES ($1, $2, $3)
           ON CONFLICT (network, role) DO UPDATE
             SET address = EXCLUDED.address, updated_at = now(),
                 next_nonce = CASE WHEN treasury_wallets.address = EXCLUDED.address
                                   THEN treasury_wallets.next_nonce END`,
          [network, role, address],
        );
      }
    }
    this.logger.log({ networks: this.sweepingNetworks() }, 'Treasury wallets registered');
  }

  private loadAccounts(config: AppConfig): void {
    const file = config.treasury.depositKeysFile;
    if (file) {
      for (const [family, key] of Object.entries(readDepositKeysFile(file))) {
        this.addAccount(family as ChainFamily, AccountPrivateKey.fromXprv(key.xprv), file);
      }
      return;
    }
    if (config.env !== 'sandbox' || !this.settings.size) return;
    // Sandbox without a key file: the development wallet's mnemonic, when it is the one the
    // API derives from (a configured xpub of another wallet simply does not sweep).
    const mnemonic = readDevelopmentMnemonic(config.devSecretsDir);
    if (!mnemonic) return;
    for (const family of CHAIN_FAMILIES) {
      const account = AccountPrivateKey.fromMnemonic(mnemonic, family);
      if (account.xpub === this.hdWallet.accountFor(family).xpub)
        this.accounts.set(family, account);
    }
  }

  private addAccount(family: ChainFamily, account: AccountPrivateKey, file: string): void {
    if (!CHAIN_FAMILIES.includes(family)) {
      throw new SweepKeysError(`DEPOSIT_KEYS_FILE ${file}: unknown chain family ${family}.`);
    }
    if (account.xpub !== this.hdWallet.accountFor(family).xpub) {
      throw new SweepKeysError(
        `DEPOSIT_KEYS_FILE ${file}: the ${family} key is not the private side of the configured ` +
          `HD_${family}_XPUB; it would sign for addresses that are not the pay addresses.`,
      );
    }
    this.accounts.set(family, account);
  }
}

function readDepositKeysFile(path: string): DepositKeysFile {
  let parsed: DepositKeysFile;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as DepositKeysFile;
  } catch (error) {
    // Never echo the content: it holds private keys.
    const reason = error instanceof SyntaxError ? 'not valid JSON' : 'unreadable';
    throw new SweepKeysError(`DEPOSIT_KEYS_FILE ${path} is ${reason}.`);
  }
  for (const [family, entry] of Object.entries(parsed ?? {})) {
    if (typeof entry?.xprv !== 'string') {
      throw new SweepKeysError(`DEPOSIT_KEYS_FILE ${path}: ${family}.xprv is missing.`);
    }
    try {
      AccountPrivateKey.fromXprv(entry.xprv);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'not usable';
      throw new SweepKeysError(`DEPOSIT_KEYS_FILE ${path}: ${family}.xprv: ${reason}`);
    }
  }
  return parsed ?? {};
}

function readDevelopmentMnemonic(secretsDir: string): string | null {
  try {
    const content = JSON.parse(readFileSync(join(secretsDir, DEVELOPMENT_WALLET_FILE), 'utf8')) as {
      mnemonic?: unknown;
    };
    return typeof content.mnemonic === 'string' ? content.mnemonic : null;
  } catch {
    return null;
  }
}
