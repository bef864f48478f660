import { writeFileSync } from 'node:fs';
import { Devnet, DEVNET_ACCOUNTS } from '../../test/support/devnet';

/** The devnet's NETWORKS_FILE and HOT_WALLETS_FILE, as `npm run devnet` writes them. */
export interface DevnetFiles {
  /** ETHEREUM mapped onto the devnet (RPC URL, token contracts, confirmations). */
  networksFile: string;
  /** The devnet hot wallet's key (anvil account #2): read by the worker only. */
  hotWalletsFile: string;
}

export function writeDevnetFiles(devnet: Devnet, base: string, confirmations = 1): DevnetFiles {
  const files = {
    networksFile: `${base}.networks.json`,
    hotWalletsFile: `${base}.hot-wallets.json`,
  };
  writeFileSync(files.networksFile, devnet.networksFileJson({ confirmations }));
  // anvil's well-known account #2: a public test key, never a real secret.
  const hotWallets = { ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey } };
  writeFileSync(files.hotWalletsFile, JSON.stringify(hotWallets));
  return files;
}

/** What the API (`worker` false) or the worker needs to run on the devnet's ETHEREUM alone. */
export function devnetEnvironment(files: DevnetFiles, worker: boolean): Record<string, string> {
  return {
    NETWORKS_FILE: files.networksFile,
    WATCH_NETWORKS: 'ETHEREUM',
    ...(worker ? { HOT_WALLETS_FILE: files.hotWalletsFile } : {}),
  };
}
