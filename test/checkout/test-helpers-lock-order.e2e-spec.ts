import { Client } from 'pg';
import { MerchantsService } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { LedgerService } from '@app/ledger';
import { PayoutEvents } from '@app/payouts/payout-events';
import { RefundExpiry } from '@app/refunds';
import { REVERSED_PAYMENT_REASON } from '@app/refunds/refund-reversal-guard';
import { PayoutJournalRepository } from '@app/payouts/processing/payout-journal.repository';
import { SandboxFunding } from '@app/payouts/processing/sandbox-funding';
import { creditBalance } from '../support/ledger-credit';
import { postPayout, randomTronAddress } from '../support/payouts-api';
import { postSessionRefund } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';

const sessionHelper = (id: string, action: string) =>
  `/v1/test-helpers/checkout/sessions/${id}/${action}`;
const payoutHelper = (id: string, action: string) => `/v1/test-helpers/payouts/${id}/${action}`;

/*
 * A simulated reorg and a simulated payout completion on the same token at the same moment
 * (review Low, docs/sandbox.md): both lock `fees:` and `simulated:` balance rows. Every posting
 * locks in account order; the reorg used to post its `simulated:` entry before settlement's
 * `deposits:`/`fees:`/`merchant:` one, so it held `simulated:` while waiting for `fees:`, which
 * the completion (`fees:`, `merchant_held:`, `simulated:`) held while waiting for `simulated:`.
 * Another connection holds `fees:` while both queue behind it, the completion first: the
 * interleaving that deadlocked, made certain.
 */
describe('Sandbox test helpers take balance locks in the ledger order (real PostgreSQL)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Sandbox lock order' });
    // A session fee, so that the reorg's reversal has a `fees:` line as the completion does.
    await api.app.get(MerchantsService).setFeeRule(merchant.id, '1', '0');
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
  });

  afterAll(() => api?.close());

  it('a reorg and a payout completion waiting on the same fees: row both succeed', async () => {
    const session = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    const paid = await api
      .post(sessionHelper(session.body.id, 'payments'), merchant, { amount: session.body.amount })
      .expect(200);
    expect(paid.body.status).toBe('Paid');
    const payout = await postPayout(api, merchant, {
      amount: '20',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    }).expect(201);
    expect(payout.body.fee).not.toBe('0');

    const holder = new Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
      await holder.query('BEGIN');
      const held = await holder.query(
        `SELECT 1 FROM ledger_balances WHERE account = 'fees:TRON:USDT' FOR UPDATE`,
      );
      expect(held.rowCount).toBe(1);
      // Waiting on the holder, or queued behind one that does (a row's second waiter waits for
      // the first, which holds the row's tuple lock).
      const waitingBehindHolder = async () =>
        Number(
          (
            await api.dataSource.query(
              `WITH first AS (
                 SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))
               SELECT count(*) AS n FROM pg_stat_activity a
                WHERE $1 = ANY(pg_blocking_pids(a.pid))
                   OR EXISTS (SELECT 1 FROM first WHERE first.pid = ANY(pg_blocking_pids(a.pid)))`,
              [pid],
            )
          )[0].n,
        );

      const completing = api
        .post(payoutHelper(payout.body.id, 'complete'), merchant, {})
        .then((r) => r);
      await waitFor(async () => (await waitingBehindHolder()) === 1, 30_000, 'complete waiting');
      const reorging = api
        .post(sessionHelper(session.body.id, 'reorg'), merchant, {})
        .then((r) => r);
      await waitFor(async () => (await waitingBehindHolder()) === 2, 30_000, 'reorg waiting');
      await holder.query('COMMIT');

      const [completed, reorged] = await Promise.all([completing, reorging]);
      expect({ status: completed.status, body: completed.body.status }).toEqual({
        status: 200,
        body: 'Completed',
      });
      expect({ status: reorged.status, body: reorged.body.status }).toEqual({
        status: 200,
        body: 'Pending',
      });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }, 120_000);

  /*
   * Review r4, F1: the worker completing a refund's payout of a simulated payment (payout row,
   * then `fees:`) and a reorg of that session (session, then settlement's `fees:`, then, in the
   * reversal guard, the refund's payout row). Another connection holds `fees:` while the reorg
   * queues first and the worker's decide second: the interleaving that deadlocked (40P01).
   */
  it("a reorg of a session and the worker's completion of its refund's payout both end", async () => {
    const owner = await api.createMerchant({ name: 'Refund lock order' });
    await api.app.get(MerchantsService).setFeeRule(owner.id, '1', '0');
    const session = await api
      .post('/v1/checkout/sessions', owner, {
        pricing_amount: '100',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    await api
      .post(sessionHelper(session.body.id, 'payments'), owner, { amount: session.body.amount })
      .expect(200);
    const refund = await postSessionRefund(api, owner, session.body.id, {
      amount: '30',
      to_address: randomTronAddress(),
    }).expect(201);
    expect(refund.body.fee).not.toBe('0');
    const [payout]: Array<{ id: string; status: string }> = await api.dataSource.query(
      `SELECT id, status FROM payouts WHERE refund_id = $1`,
      [refund.body.id],
    );
    expect(payout.status).toBe('Pending');

    // The worker's first step of a send (PayoutSender.send): the payout's lock, then the decision.
    const events = api.app.get(PayoutEvents, { strict: false });
    const journal = new PayoutJournalRepository(api.dataSource, events);
    const funding = new SandboxFunding(
      api.app.get<AppConfig>(APP_CONFIG, { strict: false }),
      journal,
      api.app.get(LedgerService, { strict: false }),
      events,
    );

    const holder = new Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM ledger_balances WHERE account = 'fees:TRON:USDT' FOR UPDATE`,
      );
      const waitingBehindHolder = async () =>
        Number(
          (
            await api.dataSource.query(
              `WITH first AS (
                 SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))
               SELECT count(*) AS n FROM pg_stat_activity a
                WHERE $1 = ANY(pg_blocking_pids(a.pid))
                   OR EXISTS (SELECT 1 FROM first WHERE first.pid = ANY(pg_blocking_pids(a.pid)))`,
              [pid],
            )
          )[0].n,
        );
      const reorging = api.post(sessionHelper(session.body.id, 'reorg'), owner, {}).then((r) => r);
      await waitFor(async () => (await waitingBehindHolder()) === 1, 30_000, 'reorg waiting');
      const deciding = api.dataSource
        .transaction(async (manager) => {
          const locked = await journal.lockSendable(manager, payout.id);
          return locked ? funding.decide(manager, locked) : 'not sendable';
        })
        .then(
          (decision) => ({ decision }),
          (error: Error) => ({ decision: `error: ${error.message}` }),
        );
      await waitFor(async () => (await waitingBehindHolder()) === 2, 30_000, 'decide waiting');
      await holder.query('COMMIT');

      const [reorged, decided] = await Promise.all([reorging, deciding]);
      expect({ status: reorged.status, body: reorged.body.status }).toEqual({
        status: 200,
        body: 'Pending',
      });
      // The reorg went first: it canceled the refund nothing had signed; the worker then finds
      // its payout no longer sendable.
      expect(decided).toEqual({ decision: 'not sendable' });
      const { body: after } = await api.get(`/v1/refunds/${refund.body.id}`, owner).expect(200);
      expect(after.status).toBe('Canceled');
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }, 120_000);

  /*
   * Review r5, N1: a refund waiting for its address (`requires_destination`) has no payout. The
   * merchant's cancel (or the expiry tick) holds the refund row and then posts the release
   * (`merchant:M`); a reorg of its session posted the reversal (`merchant:M`) and then, in the
   * reversal guard, wanted the refund row. Another connection holds `merchant:M` while the reorg
   * queues first and the cancel (or expiry) second: the interleaving that deadlocked (40P01).
   */
  describe('a reorg and a requires_destination refund taken by another path', () => {
    async function waitingRefund(name: string) {
      const owner = await api.createMerchant({ name });
      await api.app.get(MerchantsService).setFeeRule(owner.id, '1', '0');
      const session = await api
        .post('/v1/checkout/sessions', owner, {
          pricing_amount: '100',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'TRON',
        })
        .expect(201);
      await api
        .post(sessionHelper(session.body.id, 'payments'), owner, { amount: session.body.amount })
        .expect(200);
      const refund = await postSessionRefund(api, owner, session.body.id, {
        amount: '30',
      }).expect(201);
      expect(refund.body.status).toBe('requires_destination');
      return { owner, sessionId: session.body.id as string, refundId: refund.body.id as string };
    }

    /** Runs `second` once the reorg waits behind `merchant:M`, held by another connection. */
    async function interleave<T>(
      owner: TestMerchant,
      sessionId: string,
      second: () => Promise<T>,
      secondDone: () => boolean,
    ) {
      const holder = new Client({ connectionString: TEST_DATABASE_URL });
      await holder.connect();
      try {
        const [{ pid }] = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows;
        await holder.query('BEGIN');
        const held = await holder.query(
          `SELECT 1 FROM ledger_balances WHERE account = $1 FOR UPDATE`,
          [`merchant:${owner.id}:-:TRON:USDT`],
        );
        expect(held.rowCount).toBe(1);
        const waitingBehindHolder = async () =>
          Number(
            (
              await api.dataSource.query(
                `WITH first AS (
                   SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))
                 SELECT count(*) AS n FROM pg_stat_activity a
                  WHERE $1 = ANY(pg_blocking_pids(a.pid))
                     OR EXISTS (SELECT 1 FROM first WHERE first.pid = ANY(pg_blocking_pids(a.pid)))`,
                [pid],
              )
            )[0].n,
          );
        const reorging = api.post(sessionHelper(sessionId, 'reorg'), owner, {}).then((r) => r);
        await waitFor(async () => (await waitingBehindHolder()) === 1, 30_000, 'reorg waiting');
        const running = second();
        // Waiting behind the reorg (on the refund row with the fix, on `merchant:M` before it),
        // or already done (the expiry skips the refund the reorg holds).
        await waitFor(
          async () => secondDone() || (await waitingBehindHolder()) === 2,
          30_000,
          'second waiting',
        );
        await holder.query('COMMIT');
        const [reorged, other] = await Promise.all([reorging, running]);
        expect({ status: reorged.status, body: reorged.body.status }).toEqual({
          status: 200,
          body: 'Pending',
        });
        return other;
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    }

    it("a reorg and the merchant's cancel of the refund both end", async () => {
      const { owner, sessionId, refundId } = await waitingRefund('Cancel lock order');
      let done = false;
      const canceled = await interleave(
        owner,
        sessionId,
        () =>
          api
            .post(`/v1/refunds/${refundId}/cancel`, owner, {})
            .then((r) => r)
            .finally(() => (done = true)),
        () => done,
      );
      // The reorg went first and canceled the refund: the merchant's cancel finds it Canceled.
      expect({ status: canceled.status, code: canceled.body.error?.code }).toEqual({
        status: 409,
        code: 'invalid_state',
      });
      const { body: after } = await api.get(`/v1/refunds/${refundId}`, owner).expect(200);
      expect({ status: after.status, reason: after.error_reason }).toEqual({
        status: 'Canceled',
        reason: REVERSED_PAYMENT_REASON,
      });
    }, 120_000);

    it('a reorg and the expiry of the refund both end', async () => {
      const { owner, sessionId, refundId } = await waitingRefund('Expiry lock order');
      const expiry = api.app.get(RefundExpiry);
      await api.dataSource.query(
        `UPDATE refunds SET created_at = now() - make_interval(mins => $2) WHERE id = $1`,
        [refundId, expiry.expiryMinutes + 1],
      );
      let done = false;
      const expired = await interleave(
        owner,
        sessionId,
        () =>
          expiry
            .expireDue()
            .then(
              (count) => ({ outcome: 'ok', count }),
              (error: Error) => ({ outcome: `error: ${error.message}`, count: 0 }),
            )
            .finally(() => (done = true)),
        () => done,
      );
      expect(expired.outcome).toBe('ok');
      // Whichever went first, the refund is canceled once; the reorg, holding it, did it.
      const { body: after } = await api.get(`/v1/refunds/${refundId}`, owner).expect(200);
      expect({ status: after.status, reason: after.error_reason }).toEqual({
        status: 'Canceled',
        reason: REVERSED_PAYMENT_REASON,
      });
    }, 120_000);
  });
});
