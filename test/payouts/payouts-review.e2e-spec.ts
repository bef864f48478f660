import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { MerchantsService } from '@app/auth';
import { QUEUES } from '@app/common';
import { LedgerAccounts } from '@app/ledger';
import { PayoutReviewError, PayoutReviews } from '@app/payouts';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  ledgerLines,
  OFFSET_TIMESTAMP,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
  cleanUpPayouts,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

// Read when the app starts: set before TestApi.start(), given back right after.
const REVIEW_ENV = { PAYOUT_REVIEW_THRESHOLD: '100', PAYOUT_REVIEW_THRESHOLDS: 'ETHEREUM:USDT=50' };

describe('Payouts: review', () => {
  let api: TestApi;
  let reviews: PayoutReviews;
  let queue: Queue;
  let merchant: TestMerchant;
  let careful: TestMerchant;
  const extra: TestMerchant[] = [];

  const tron = (amount: string, to = randomTronAddress()) => ({
    amount,
    currency: 'USDT',
    network: 'TRON',
    to_address: to,
  });
  const evm = (amount: string, network: string, to = randomEvmAddress()) => ({
    amount,
    currency: 'USDT',
    network,
    to_address: to,
  });
  const create = async (who: TestMerchant, body: Record<string, unknown>) =>
    (await postPayout(api, who, body).expect(201)).body as { id: string; pending_reason: string };
  /** Marks a payout paid on chain, as the processor would once it is confirmed. */
  const complete = (id: string) =>
    api.dataSource.query(
      `UPDATE payouts SET status = 'Completed', completed_at = now(), tx_hash = $2 WHERE id = $1`,
      [id, '0x' + 'ab'.repeat(32)],
    );
  const refusal = async (action: Promise<unknown>) => {
    const error: unknown = await action.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PayoutReviewError);
    return (error as Error).message;
  };

  beforeAll(async () => {
    const previous = Object.fromEntries(Object.keys(REVIEW_ENV).map((k) => [k, process.env[k]]));
    Object.assign(process.env, REVIEW_ENV);
    try {
      api = await TestApi.start();
    } finally {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    reviews = api.app.get(PayoutReviews);
    queue = api.app.get<Queue>(getQueueToken(QUEUES.payouts));
    merchant = await api.createMerchant({ name: 'Reviewed' });
    careful = await api.createMerchant({ name: 'Careful' });
    await api.app.get(MerchantsService).setPayoutPolicy(careful.id, null, true);
    for (const who of [merchant, careful]) {
      for (const network of ['TRON', 'ETHEREUM', 'BSC']) {
        await creditBalance(api.dataSource, {
          merchantId: who.id,
          network,
          currency: 'USDT',
          amount: '10000',
        });
      }
    }
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, careful, ...extra]);
    await api.close();
  });

  describe('when a payout waits', () => {
    it('holds a payout above PAYOUT_REVIEW_THRESHOLD for review, and only it gets no send job', async () => {
      const above = await create(merchant, tron('100.000001'));
      expect(above.pending_reason).toBe('review_amount_above_threshold');
      const at = await create(merchant, tron('100'));
      expect(at.pending_reason).toBeNull();
      expect(await queue.getJob(above.id)).toBeNull();
      expect(await queue.getJob(at.id)).not.toBeNull();
      const { body } = await api.get(`${PAYOUTS}/${above.id}`, merchant).expect(200);
      expect(body).toMatchObject({
        status: 'Pending',
        pending_reason: 'review_amount_above_threshold',
        reviewed_by: null,
        reviewed_at: null,
      });
    });

    it('uses a NETWORK:CURRENCY threshold over the general one', async () => {
      expect((await create(merchant, evm('50.5', 'ETHEREUM'))).pending_reason).toBe(
        'review_amount_above_threshold',
      );
      expect((await create(merchant, evm('50.5', 'BSC'))).pending_reason).toBeNull();
    });

    it('reviews a first payout to a never-paid address for a merchant that asked for it', async () => {
      const address = randomTronAddress();
      const first = await create(careful, tron('10', address));
      expect(first.pending_reason).toBe('review_new_destination');
      // Pending, approved, failed or rejected payouts do not make an address known: only a completed one.
      expect((await create(careful, tron('10', address))).pending_reason).toBe(
        'review_new_destination',
      );
      await complete(first.id);
      expect((await create(careful, tron('10', address))).pending_reason).toBeNull();
      // The amount threshold still applies to a known address, and wins over a new one.
      expect((await create(careful, tron('150', address))).pending_reason).toBe(
        'review_amount_above_threshold',
      );
      expect((await create(careful, tron('150'))).pending_reason).toBe(
        'review_amount_above_threshold',
      );
      // A merchant without the policy is never asked.
      expect((await create(merchant, tron('10'))).pending_reason).toBeNull();
    });

    it('knows an address per network and per merchant, whatever its case', async () => {
      const address = randomEvmAddress();
      const paid = await create(careful, evm('10', 'BSC', address));
      await complete(paid.id);
      expect((await create(careful, evm('10', 'BSC', address.toLowerCase()))).pending_reason).toBe(
        null,
      );
      expect((await create(careful, evm('10', 'ETHEREUM', address))).pending_reason).toBe(
        'review_new_destination',
      );
      // Another merchant's completed payout to the address does not vouch for it.
      const elsewhere = randomTronAddress();
      await complete((await create(merchant, tron('10', elsewhere))).id);
      expect((await create(careful, tron('10', elsewhere))).pending_reason).toBe(
        'review_new_destination',
      );
    });
  });

  describe('approve', () => {
    it('records the reviewer and time, clears pending_reason and enqueues the send', async () => {
      const payout = await create(merchant, tron('500'));
      const funds = await balanceOf(api, merchant, 'TRON', 'USDT');
      const approved = await reviews.approve(payout.id, 'alice');
      expect(approved).toEqual({
        ...payout,
        pending_reason: null,
        reviewed_by: 'alice',
        reviewed_at: expect.stringMatching(OFFSET_TIMESTAMP),
      });
      expect(Math.abs(Date.parse(approved.reviewed_at!) - Date.now())).toBeLessThan(60_000);
      expect((await api.get(`${PAYOUTS}/${payout.id}`, merchant).expect(200)).body).toEqual(
        approved,
      );
      expect(await queue.getJob(payout.id)).not.toBeNull();
      // Approval does not touch the funds: still held.
      expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(funds);
      expect(await ledgerLines(api, `payout:${payout.id}:release`)).toEqual([]);
    });

    it('refuses what is not awaiting review', async () => {
      const payout = await create(merchant, tron('500'));
      await reviews.approve(payout.id, 'alice');
      expect(await refusal(reviews.approve(payout.id, 'bob'))).toBe(
        `Cannot approve payout ${payout.id}: it is already approved by alice.`,
      );
      const plain = await create(merchant, tron('10'));
      expect(await refusal(reviews.approve(plain.id, 'bob'))).toBe(
        `Cannot approve payout ${plain.id}: it is not awaiting review.`,
      );
      expect(await refusal(reviews.approve('po_0000000000000000000000', 'bob'))).toBe(
        'No payout po_0000000000000000000000.',
      );
      const done = await create(merchant, tron('500'));
      await complete(done.id);
      expect(await refusal(reviews.approve(done.id, 'bob'))).toBe(
        `Cannot approve payout ${done.id}: it is Completed.`,
      );
    });
  });

  describe('reject', () => {
    it('rejects with the reason and gives the funds back', async () => {
      const rejecter = await api.createMerchant({ name: 'Rejected' });
      extra.push(rejecter);
      await creditBalance(api.dataSource, {
        merchantId: rejecter.id,
        network: 'TRON',
        currency: 'USDT',
        amount: '1000',
      });
      const payout = await create(rejecter, tron('250'));
      expect(await balanceOf(api, rejecter, 'TRON', 'USDT')).toEqual({
        available: '750',
        held: '250',
      });
      const rejected = await reviews.reject(payout.id, 'carol', 'unknown recipient');
      expect(rejected).toEqual({
        ...payout,
        status: 'Rejected',
        pending_reason: null,
        error_reason: 'Rejected at review: unknown recipient',
        reviewed_by: 'carol',
        reviewed_at: expect.stringMatching(OFFSET_TIMESTAMP),
      });
      expect((await api.get(`${PAYOUTS}/${payout.id}`, rejecter).expect(200)).body).toEqual(
        rejected,
      );
      expect(await balanceOf(api, rejecter, 'TRON', 'USDT')).toEqual({
        available: '1000',
        held: '0',
      });
      expect(await ledgerLines(api, `payout:${payout.id}:release`)).toEqual([
        {
          kind: 'payout_release',
          account: LedgerAccounts.merchantHeld(rejecter.id, null, 'TRON', 'USDT'),
          amount: '250',
        },
        {
          kind: 'payout_release',
          account: LedgerAccounts.merchant(rejecter.id, null, 'TRON', 'USDT'),
          amount: '-250',
        },
      ]);
      expect(await refusal(reviews.reject(payout.id, 'dave', 'again'))).toBe(
        `Cannot reject payout ${payout.id}: it is Rejected.`,
      );
      expect(await refusal(reviews.approve(payout.id, 'dave'))).toBe(
        `Cannot approve payout ${payout.id}: it is Rejected.`,
      );
    });

    it('rejects any Pending payout, once, however many operators try at the same time', async () => {
      const payout = await create(merchant, tron('20'));
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => reviews.reject(payout.id, `op${i}`, 'duplicate')),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(PayoutReviewError);
      }
      expect(
        await api.count('ledger_entries', 'reference = $1', [`payout:${payout.id}:release`]),
      ).toBe(1);
    });

    it('refuses a completed payout and an unknown id', async () => {
      const payout = await create(merchant, tron('20'));
      await complete(payout.id);
      expect(await refusal(reviews.reject(payout.id, 'erin', 'too late'))).toBe(
        `Cannot reject payout ${payout.id}: it is Completed.`,
      );
      expect(await ledgerLines(api, `payout:${payout.id}:release`)).toEqual([]);
      expect(await refusal(reviews.reject('po_0000000000000000000000', 'erin', 'x'))).toBe(
        'No payout po_0000000000000000000000.',
      );
    });
  });

  it('lists payouts by status, oldest first, for the operator', async () => {
    const waiting = await reviews.list(['Pending']);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((payout) => payout.status === 'Pending')).toBe(true);
    const times = waiting.map((payout) => payout.created_at);
    expect([...times].sort()).toEqual(times);
    const finished = await reviews.list(['Rejected', 'Completed']);
    expect(finished.length).toBeGreaterThan(0);
    expect(finished.every((payout) => ['Rejected', 'Completed'].includes(payout.status))).toBe(
      true,
    );
  });
});
