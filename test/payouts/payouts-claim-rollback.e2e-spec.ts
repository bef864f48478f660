import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Decimal from 'decimal.js';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { QUEUES } from '@app/common';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { PayoutSender } from '@app/payouts';
import { useChainEnvironment } from '../support/chain-test-env';
import { FakeTronNode } from '../support/fake-tron-node';
import { creditBalance } from '../support/ledger-credit';
import { parkEarlierPayouts, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';

const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const HOT_PRIVATE_KEY = testKey('claim rollback e2e hot wallet');
const HOT = addressOf(HOT_PRIVATE_KEY);
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const TRX = 1_000_000n;

/*
 * Review r6, L2: what a claim's transaction decides (a sandbox payout parked for simulated money)
 * counts only once that transaction commits. A claim that rolls back leaves every payout it
 * leased due again at once, none held until its lease runs out.
 */
describe('A claim that rolls back leaves every leased payout due again', () => {
  let node: FakeTronNode;
  let api: TestApi;
  let worker: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    node = new FakeTronNode();
    const url = await node.start();
    node.setTokenBalance(USDT, HOT, 1_000_000_000n);
    node.setTrxBalance(HOT, 10_000n * TRX);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
      }),
      {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ TRON: HOT_PRIVATE_KEY }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_NETWORK_FEES: 'TRON=0',
      },
    );
    api = await TestApi.start();
    await parkEarlierPayouts(api.dataSource);
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();
    // Only the test's own calls send: no job of this worker claims the payouts meanwhile.
    await worker.get<Queue>(getQueueToken(QUEUES.payouts)).pause(true);
    merchant = await api.createMerchant();
    // Real money (a deposit): 10. Money that is not real (no deposit): 100.
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '10',
    });
    const token = { currency: 'USDT', network: 'TRON' };
    await api.dataSource.transaction((manager) =>
      new LedgerService(api.dataSource).post(manager, {
        reference: `test_not_real:${randomUUID()}`,
        kind: 'test_not_real_credit',
        lines: [
          { account: LedgerAccounts.deposits('TRON', 'USDT'), amount: new Decimal(100), ...token },
          {
            account: LedgerAccounts.merchant(merchant.id, null, 'TRON', 'USDT'),
            amount: new Decimal(-100),
            ...token,
            merchantId: merchant.id,
            subMerchantId: null,
          },
        ],
      }),
    );
  });

  afterAll(async () => {
    await api?.dataSource.query(`DROP TRIGGER IF EXISTS claim_rollback_e2e ON payout_attempts`);
    await api?.dataSource.query(`DROP FUNCTION IF EXISTS claim_rollback_e2e()`);
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  async function createPayout(amount: string): Promise<string> {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        {
          amount,
          currency: 'USDT',
          network: 'TRON',
          to_address: addressOf(testKey(`recipient ${randomUUID()}`)),
        },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body.id;
  }

  const stateOf = async (id: string) =>
    (
      await api.dataSource.query(
        `SELECT status, pending_reason, next_attempt_at <= now() AS due FROM payouts WHERE id = $1`,
        [id],
      )
    )[0] as { status: string; pending_reason: string | null; due: boolean };

  it('a payout parked in the rolled-back transaction is due again, not parked', async () => {
    // Real money covers A or B, not both: the claim signs A and parks B, in one transaction.
    const a = await createPayout('6');
    const b = await createPayout('6');
    // That transaction fails on A's attempt (a database error after B was parked in it).
    await api.dataSource.query(
      `CREATE FUNCTION claim_rollback_e2e() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'claim_rollback_e2e'; END $$`,
    );
    await api.dataSource.query(
      `CREATE TRIGGER claim_rollback_e2e BEFORE INSERT ON payout_attempts FOR EACH ROW
        WHEN (NEW.payout_id = '${a}') EXECUTE FUNCTION claim_rollback_e2e()`,
    );
    const sender = worker.get(PayoutSender);
    await expect(sender.send(a)).rejects.toThrow('claim_rollback_e2e');
    expect(await stateOf(a)).toEqual({ status: 'Pending', pending_reason: null, due: true });
    expect(await stateOf(b)).toEqual({ status: 'Pending', pending_reason: null, due: true });

    // Without the fault the same claim signs A and parks B.
    await api.dataSource.query(`DROP TRIGGER claim_rollback_e2e ON payout_attempts`);
    expect(await sender.send(a)).toBe('sent');
    expect(await stateOf(a)).toMatchObject({ status: 'Processing' });
    expect(await stateOf(b)).toMatchObject({
      status: 'Pending',
      pending_reason: 'awaiting_simulation',
    });
  });
});
