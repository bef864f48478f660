import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { TronWeb } from 'tronweb';
import type { DataSource } from 'typeorm';
import { TRON_ACCOUNT_PATH } from '@app/chains/hd/derivation';
import { SweepKeys } from '@app/treasury';
import { CliModule } from '../../apps/cli/src/cli.module';
import { FakeTronNode } from './fake-tron-node';

// The public "abandon ... about" test mnemonic the suites' HD_TRON_XPUB comes from.
const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Fixed test keys (hashes of labels): they never hold funds anywhere. */
export const tronTestKey = (label: string): string =>
  createHash('sha256').update(label).digest('hex');
export const tronAddressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;

export const TRX = 1_000_000n;

function writeJson(name: string, content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), `${name}-`)), `${name}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

/** The files a TRON-sweeping worker reads: the staking key, the deposit xprv, the settings. */
export function tronSweepEnvironment(
  stakingPrivateKey: string,
  settings: Record<string, unknown> = {},
): Record<string, string> {
  const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TEST_MNEMONIC).computeSeed());
  const xprv = root.derivePath(TRON_ACCOUNT_PATH).extendedKey;
  return {
    SWEEPER_KEYS_FILE: writeJson('sweepers', { TRON: { privateKey: stakingPrivateKey } }),
    DEPOSIT_KEYS_FILE: writeJson('deposit-keys', { TRON: { xprv } }),
    TREASURY_FILE: writeJson('treasury', {
      TRON: {
        minimumSweep: '1',
        // Test TRX is worth nothing: the policy's cost must not hold small test amounts back.
        nativeCoinPrice: '0.0001',
        ...settings,
      },
    }),
  };
}

/**
 * The sweeping engine in this process, without the worker's schedules (the CLI's module): the
 * test runs each pass itself, between blocks it mines. A new context is a new engine instance,
 * as after a crash.
 */
export async function startSweepEngine(): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false });
  await app.init();
  await app.get(SweepKeys).register();
  return app;
}

/**
 * A suite's TRON node is a new chain: sweeps an earlier suite left in flight name transactions
 * of another chain (none can be mined here); the hot wallet is this suite's.
 */
export async function startTronSweepsOnNewChain(dataSource: DataSource, hotWallet: string) {
  await dataSource.query(
    `UPDATE sweeps SET status = 'Failed', error_reason = 'left by an earlier test chain',
                       updated_at = now()
      WHERE network = 'TRON' AND status = 'Processing'`,
  );
  await dataSource.query(
    `UPDATE sweep_items SET status = 'Failed'
      WHERE network = 'TRON' AND status = 'Pending'
        AND sweep_id IN (SELECT id FROM sweeps WHERE status <> 'Processing')`,
  );
  await dataSource.query(
    `INSERT INTO hot_wallets (network, address) VALUES ('TRON', $1)
     ON CONFLICT (network) DO UPDATE SET address = EXCLUDED.address, updated_at = now()`,
    [hotWallet],
  );
}

/** Stakes `amount` sun of the account's TRX for energy, with tronweb's own builder and signer. */
export async function stakeForEnergy(
  node: FakeTronNode,
  privateKey: string,
  amount: bigint,
): Promise<void> {
  const tronWeb = new TronWeb({ fullHost: node.url });
  const owner = tronAddressOf(privateKey);
  const unsigned = await tronWeb.transactionBuilder.freezeBalanceV2(
    Number(amount),
    'ENERGY',
    owner,
  );
  const signed = await tronWeb.trx.sign(unsigned, privateKey);
  const answer = (await tronWeb.trx.sendRawTransaction(signed)) as { result?: boolean };
  if (!answer.result) throw new Error(`staking refused: ${JSON.stringify(answer)}`);
  node.mineBroadcasts();
}
