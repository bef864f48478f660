import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbiCoder, computeAddress, getAddress, id, keccak256, toBeHex, zeroPadValue } from 'ethers';
import type { DataSource } from 'typeorm';
import type { Currency } from '@app/chains/networks/network.types';
import { forgetChain } from './chain-reset';
import type { Devnet } from './devnet';
import type { TestApi } from './test-app';

/** A HOT_WALLETS_FILE in a temporary folder: `{NETWORK: privateKey}`. */
export function writeHotWalletsFile(keys: Record<string, string>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'hot-wallets-')), 'hot-wallets.json');
  const content = Object.fromEntries(
    Object.entries(keys).map(([network, privateKey]) => [network, { privateKey }]),
  );
  writeFileSync(path, JSON.stringify(content));
  return path;
}

// OpenZeppelin 5's ERC20 keeps `_balances` first, in storage slot 0.
function balanceSlot(holder: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [holder, 0]));
}

/** Sets a token balance directly in the contract's storage (anvil only): drains or refills a wallet. */
export async function setTokenBalance(
  devnet: Devnet,
  currency: Currency,
  holder: string,
  baseUnits: bigint,
): Promise<void> {
  await devnet.provider.send('anvil_setStorageAt', [
    devnet.tokens[currency].contract,
    balanceSlot(holder),
    zeroPadValue(toBeHex(baseUnits), 32),
  ]);
}

const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

export interface ChainTransfer {
  to: string;
  amount: bigint;
  txHash: string;
}

/** Every Transfer of the token sent by `from`, as the chain records it. */
export async function transfersFrom(
  devnet: Devnet,
  currency: Currency,
  from: string,
): Promise<ChainTransfer[]> {
  const logs = await devnet.provider.getLogs({
    address: devnet.tokens[currency].contract,
    topics: [TRANSFER_TOPIC, zeroPadValue(from, 32)],
    fromBlock: 0,
    toBlock: 'latest',
  });
  return logs.map((log) => ({
    to: getAddress('0x' + log.topics[2].slice(26)),
    amount: BigInt(log.data),
    txHash: log.transactionHash.toLowerCase(),
  }));
}

/**
 * Puts off, for good, every Pending payout that earlier suites left in the shared test database
 * (suites without a worker create payouts nobody sends). A worker started on this suite's chain
 * would send them from its hot wallet: extra transfers on the chain, and tokens spent that this
 * suite's own payouts then lack.
 */
export async function parkEarlierPayouts(dataSource: DataSource): Promise<void> {
  await dataSource.query(
    `UPDATE payouts SET next_attempt_at = 'infinity' WHERE status = 'Pending'`,
  );
}

/**
 * A payout suite on a devnet of its own: the chain the previous suite watched under that name is
 * forgotten, earlier suites' Pending payouts are put off, and none of theirs is in flight (it
 * would carry another chain's nonces into this one).
 */
export async function startPayoutsOnNewChain(api: TestApi, network: string): Promise<void> {
  await forgetChain(api.app, network);
  await parkEarlierPayouts(api.dataSource);
  const inFlight = await api.count('payouts', `network = $1 AND status = 'Processing'`, [network]);
  if (inFlight !== 0) throw new Error(`${inFlight} ${network} payouts of earlier suites in flight`);
}

/**
 * The environment of a payout suite with an ETHEREUM hot wallet of its own (`privateKey`: no
 * earlier suite's nonces in flight), read once the devnet runs: the wallet given 1,000 ETH and
 * 10^6 USDT, its HOT_WALLETS_FILE, nothing watched, payouts tracked every 200 ms and tried again
 * after 300 ms, no replacement during a test (600 s), no network fee; `extra` over that.
 */
export async function ownHotWalletEnvironment(
  devnet: Devnet,
  privateKey: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const address = computeAddress(privateKey);
  await devnet.provider.send('anvil_setBalance', [address, '0x' + (10n ** 21n).toString(16)]);
  await setTokenBalance(devnet, 'USDT', address, 10n ** 12n);
  return {
    WATCH_NETWORKS: 'none',
    HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: privateKey }),
    PAYOUT_TRACK_INTERVAL_MS: '200',
    PAYOUT_RETRY_DELAY_MS: '300',
    PAYOUT_REPLACE_AFTER_MS: '600000',
    PAYOUT_NETWORK_FEES: 'ETHEREUM=0',
    ...extra,
  };
}
