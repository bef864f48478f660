import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { QUEUES } from '@app/common';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { PayoutSender } from '@app/payouts';
import { TRX } from '../support/tron-keys';
import { useTronSuite } from '../support/tron-suite';

/*
 * Review r6, L2: what a claim's transaction decides (a sandbox payout parked for simulated money)
 * counts only once that transaction commits. A claim that rolls back leaves every payout it
 * leased due again at once, none held until its lease runs out.
 */
describe('A claim that rolls back leaves every leased payout due again', () => {
  const suite = useTronSuite({
    hotWallet: 'claim rollback e2e hot wallet',
    hotWalletHolds: { usdt: 1_000_000_000n, trx: 10_000n * TRX },
    environment: { PAYOUT_NETWORK_FEES: 'TRON=0' },
    worker: true,
    // Real money (a deposit): 10.
    merchant: { usdt: '10' },
    cleanUp: async ({ api }) => {
      await api.dataSource.query(`DROP TRIGGER IF EXISTS claim_rollback_e2e ON payout_attempts`);
      await api.dataSource.query(`DROP FUNCTION IF EXISTS claim_rollback_e2e()`);
    },
  });

  beforeAll(async () => {
    const { api, worker, merchant } = suite;
    // Only the test's own calls send: no job of this worker claims the payouts meanwhile.
    await worker.get<Queue>(getQueueToken(QUEUES.payouts)).pause(true);
    // Money that is not real (no deposit): 100.
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

  const stateOf = async (id: string) =>
    (
      await suite.api.dataSource.query(
        `SELECT status, pending_reason, next_attempt_at <= now() AS due FROM payouts WHERE id = $1`,
        [id],
      )
    )[0] as { status: string; pending_reason: string | null; due: boolean };

  it('a payout parked in the rolled-back transaction is due again, not parked', async () => {
    const { api, worker } = suite;
    // Real money covers A or B, not both: the claim signs A and parks B, in one transaction.
    const a = await suite.createPayout('6');
    const b = await suite.createPayout('6');
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
