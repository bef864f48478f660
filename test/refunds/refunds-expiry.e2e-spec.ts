import { LedgerAccounts } from '@app/ledger';
import { RefundExpiry } from '@app/refunds';
import { balanceOf, cleanUpPayouts, randomTronAddress } from '../support/payouts-api';
import {
  paidSession,
  postRefundDestination,
  postSessionRefund,
  RefundBody,
  refundEvents,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { plus } from '../support/decimal-sum';

/*
 * A refund waiting for the customer's address (`requires_destination`) expires (review finding
 * 9, docs/refunds.md "States"): past REFUND_DESTINATION_EXPIRY_MINUTES (7 days by default) the
 * worker's job cancels it, once, releasing its hold, with refund.canceled; the form refuses it.
 */
describe('Refunds waiting for an address expire', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  const others: TestMerchant[] = [];

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Expiring Refunds Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, ...others]);
    await api.close();
  });

  const expiry = () => api.app.get(RefundExpiry);
  const getRefund = async (id: string, of: TestMerchant = merchant) =>
    (await api.get(`/v1/refunds/${id}`, of).expect(200)).body as RefundBody;
  /** Whether a backend of this database waits for a lock. */
  const someoneWaits = async () => {
    const rows: Array<{ count: string }> = await api.dataSource.query(
      `SELECT count(*)::text AS count FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return Number(rows[0].count) > 0;
  };
  /** Moves the refund's creation back by `minutes`, as if it had waited that long. */
  const age = (id: string, minutes: number) =>
    api.dataSource.query(
      `UPDATE refunds SET created_at = now() - make_interval(mins => $2) WHERE id = $1`,
      [id, minutes],
    );

  async function waitingRefund(
    of: TestMerchant = merchant,
  ): Promise<{ sessionId: string; refund: RefundBody }> {
    const session = await paidSession(api, of, {
      network: 'TRON',
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });
    const { body } = await postSessionRefund(api, of, session.id).expect(201);
    expect(body.status).toBe('requires_destination');
    return { sessionId: session.id, refund: body as RefundBody };
  }

  it('defaults to 7 days', () => {
    expect(expiry().expiryMinutes).toBe(7 * 24 * 60);
  });

  it('cancels a refund past its deadline once, releasing its hold, and leaves a younger one', async () => {
    const before = await balanceOf(api, merchant, 'TRON', 'USDT');
    const due = await waitingRefund();
    const young = await waitingRefund();
    const held = await balanceOf(api, merchant, 'TRON', 'USDT');
    expect(held?.held).toBe(plus(before?.held ?? 0, '80'));
    await age(due.refund.id, expiry().expiryMinutes + 1);
    await age(young.refund.id, expiry().expiryMinutes - 5);

    // The hosted form refuses it at once, before the worker gets to it.
    const { body: late } = await postRefundDestination(api, due.sessionId, due.refund.id, {
      to_address: randomTronAddress(),
    }).expect(409);
    expect(late.error).toMatchObject({ code: 'invalid_state', param: 'to_address' });
    expect(late.error.message).toContain('expired');

    // Two workers at once: each refund is canceled by one of them only.
    await Promise.all([expiry().expireDue(), expiry().expireDue()]);
    await expiry().expireDue();
    expect(await getRefund(due.refund.id)).toMatchObject({
      status: 'Canceled',
      error_reason: 'Canceled: no address was given within 7 days.',
    });
    expect(await refundEvents(api, merchant, due.refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
      { type: 'refund.canceled', previous_status: 'requires_destination', status: 'Canceled' },
    ]);
    expect((await getRefund(young.refund.id)).status).toBe('requires_destination');
    // Only the expired refund's 40 is released.
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
      available: plus(held!.available, '40'),
      held: plus(held!.held, '-40'),
    });
    // The younger one still takes its address.
    await postRefundDestination(api, young.sessionId, young.refund.id, {
      to_address: randomTronAddress(),
    }).expect(200);
    expect((await getRefund(young.refund.id)).status).toBe('Pending');
  });
  it('cancels a batch across merchants without deadlocking a settlement of theirs', async () => {
    const pair = [
      await api.createMerchant({ name: 'Expiring Refunds Shop A' }),
      await api.createMerchant({ name: 'Expiring Refunds Shop B' }),
    ];
    others.push(...pair);
    const available = (of: TestMerchant) => LedgerAccounts.merchant(of.id, null, 'TRON', 'USDT');
    // A's balances come first in account order, B's refund first in the batch (older).
    const [a, b] = pair.sort((x, y) => (available(x) < available(y) ? -1 : 1));
    const ofA = await waitingRefund(a);
    const ofB = await waitingRefund(b);
    await age(ofB.refund.id, expiry().expiryMinutes + 10);
    await age(ofA.refund.id, expiry().expiryMinutes + 5);

    // A settlement of both merchants in flight: it holds A's balance (its statement locks in
    // account order) and is about to lock B's.
    const settlement = api.dataSource.createQueryRunner();
    await settlement.connect();
    await settlement.startTransaction();
    try {
      await settlement.query(`SELECT 1 FROM ledger_balances WHERE account = $1 FOR UPDATE`, [
        available(a),
      ]);
      let expired: Error | number | undefined;
      const expiring = expiry()
        .expireDue()
        .then(
          (count) => (expired = count),
          (error: Error) => (expired = error),
        );
      await waitFor(async () => expired !== undefined || (await someoneWaits()), 30_000);
      // The batch waits for A's balance holding none of B's: the settlement takes B's and ends.
      await settlement.query(`SELECT 1 FROM ledger_balances WHERE account = $1 FOR UPDATE`, [
        available(b),
      ]);
      await settlement.commitTransaction();
      await expiring;
      expect(expired).toBeGreaterThanOrEqual(2);
    } finally {
      if (settlement.isTransactionActive) await settlement.rollbackTransaction();
      await settlement.release();
    }
    expect((await getRefund(ofA.refund.id, a)).status).toBe('Canceled');
    expect((await getRefund(ofB.refund.id, b)).status).toBe('Canceled');
  });
});
