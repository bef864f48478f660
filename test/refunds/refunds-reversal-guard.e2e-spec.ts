import Decimal from 'decimal.js';
import { RefundCancellation } from '@app/refunds/refund-cancellation';
import { RefundReversalGuard } from '@app/refunds/refund-reversal-guard';
import { cleanUpPayouts, randomEvmAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund, RefundBody } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/*
 * A reorg took part of a session's payment (docs/refunds.md, "Late payments and reorgs"): the
 * guard cancels the newest unsigned refunds until the live ones fit. A refund it counted that was
 * canceled meanwhile (its expiry, the merchant's cancel) no longer counts: an older one that fits
 * stays (review 2, F6).
 */
describe('Refunds: the reorg guard and a refund canceled meanwhile', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Reorg Guard Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  const status = async (id: string) =>
    ((await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody).status;
  const someoneWaits = async () => {
    const rows: Array<{ count: string }> = await api.dataSource.query(
      `SELECT count(*)::text AS count FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return Number(rows[0].count) > 0;
  };

  it('keeps the older refund when the newer one it counted was canceled meanwhile', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '100',
      received: '100',
      status: 'Paid',
    });
    const older = (
      await postSessionRefund(api, merchant, session.id, {
        amount: '40',
        to_address: randomEvmAddress(),
      }).expect(201)
    ).body as RefundBody;
    const newer = (await postSessionRefund(api, merchant, session.id, { amount: '40' }).expect(201))
      .body as RefundBody;
    expect(newer.status).toBe('requires_destination');

    // The expiry canceling the newer refund, not committed yet.
    const expiry = api.dataSource.createQueryRunner();
    await expiry.connect();
    await expiry.startTransaction();
    try {
      const [locked] = await expiry.query(`SELECT * FROM refunds WHERE id = $1 FOR UPDATE`, [
        newer.id,
      ]);
      await api.app
        .get(RefundCancellation)
        .cancelLocked(expiry.manager, locked, null, 'Canceled: test expiry.');

      // A reorg takes 30: received 70, live 80 as the guard reads them (the cancel is not
      // committed), so 10 too many.
      let done = false;
      const guarding = api.dataSource
        .transaction((manager) =>
          api.app
            .get(RefundReversalGuard)
            .paymentsReversed(manager, [{ sessionId: session.id, received: new Decimal(70) }]),
        )
        .finally(() => (done = true));
      await waitFor(async () => done || (await someoneWaits()), 30_000);
      await expiry.commitTransaction();
      await guarding;
    } finally {
      if (expiry.isTransactionActive) await expiry.rollbackTransaction();
      await expiry.release();
    }
    expect(await status(newer.id)).toBe('Canceled');
    // 40 fits in 70: the older refund stays.
    expect(await status(older.id)).toBe('Pending');
  });
});
