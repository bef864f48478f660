import { Inject, Injectable, Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { Wallet } from 'ethers';
import { TronWeb } from 'tronweb';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { HotWalletKey, NETWORK_NAMES, NetworkName, NetworkRegistry } from '@app/chains';

/** HOT_WALLETS_FILE: `{"ETHEREUM": {"privateKey": "0x..."}, "TRON": {"privateKey": "..."}}`. */
type HotWalletsFile = Partial<Record<NetworkName, { privateKey: string }>>;

export class HotWalletsFileError extends Error {}

/**
 * The worker's hot wallet keys, one per network, read once from HOT_WALLETS_FILE. Only the worker
 * loads this; the API never sees a key. At the worker's start the addresses are registered in `hot_wallets`
 * (so the API can refuse them as payout destinations), and a changed key resets the nonce.
 */
@Injectable()
export class HotWallets {
  private readonly logger = new Logger(HotWallets.name);
  private readonly keys: Map<NetworkName, HotWalletKey>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly networks: NetworkRegistry,
    private readonly dataSource: DataSource,
  ) {
    this.keys = config.payouts.hotWalletsFile
      ? loadHotWallets(config.payouts.hotWalletsFile, networks)
      : new Map();
  }

  get(network: NetworkName): HotWalletKey | undefined {
    return this.keys.get(network);
  }

  all(): HotWalletKey[] {
    return [...this.keys.values()];
  }

  /** Called by the worker at start (never by the CLI, which only reads). */
  async register(): Promise<void> {
    for (const key of this.keys.values()) {
      // With nothing in flight, every nonce handed out is settled on chain, so the node's own
      // count is the next one: forget the stored nonce (a new key, or a chain that was reset,
      // like a restarted devnet, would otherwise leave a gap no transaction ever fills).
      await this.dataSource.query(
        `INSERT INTO hot_wallets (network, address) VALUES ($1, $2)
         ON CONFLICT (network) DO UPDATE
           SET address = EXCLUDED.address, updated_at = now(),
               next_nonce = CASE
                 WHEN hot_wallets.address = EXCLUDED.address AND EXISTS (
                   SELECT 1 FROM payouts WHERE network = EXCLUDED.network AND status = 'Processing')
                 THEN hot_wallets.next_nonce END`,
        [key.network, key.address],
      );
    }
    this.logger.log({ wallets: this.all() }, 'Hot wallets registered');
  }
}

/** `label` names the file in errors: HOT_WALLETS_FILE, or the CLI's --key-file. */
export function loadHotWallets(
  path: string,
  networks: NetworkRegistry,
  label = 'HOT_WALLETS_FILE',
): Map<NetworkName, HotWalletKey> {
  let parsed: HotWalletsFile;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as HotWalletsFile;
  } catch (error) {
    // Never echo the content: it is a file of private keys.
    const reason = error instanceof SyntaxError ? 'not valid JSON' : 'unreadable';
    throw new HotWalletsFileError(`${label} ${path} is ${reason}.`);
  }
  const keys = new Map<NetworkName, HotWalletKey>();
  for (const [name, entry] of Object.entries(parsed ?? {})) {
    if (!NETWORK_NAMES.includes(name as NetworkName)) {
      throw new HotWalletsFileError(`${label}: unknown network ${name}.`);
    }
    const network = networks.get(name as NetworkName);
    const privateKey = typeof entry?.privateKey === 'string' ? entry.privateKey : '';
    const address = addressOf(network.chainFamily, privateKey);
    if (!address) {
      throw new HotWalletsFileError(
        `${label}: ${name}.privateKey is not a ${network.chainFamily} private key (64 hex digits).`,
      );
    }
    keys.set(network.name, new HotWalletKey(network.name, address, privateKey));
  }
  return keys;
}

function addressOf(family: 'EVM' | 'TRON', privateKey: string): string | null {
  const hex = privateKey.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  try {
    if (family === 'EVM') return new Wallet(`0x${hex}`).address;
    const address = TronWeb.address.fromPrivateKey(hex);
    return typeof address === 'string' ? address : null;
  } catch {
    return null;
  }
}
