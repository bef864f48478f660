import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { newId } from '@app/common';
import { SessionSettlementService } from '@app/checkout';
import { LedgerAccounts } from '@app/ledger';
import {
  balanceOf,
  cleanUpPayouts,
  ledgerLines,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
} from '../support/payouts-api';
import {
  creditBalanceOf,
  paidSession,
  postRefundDestination,
  postRefundFormAccess,
  postSessionRefund,
  RefundBody,
  refusedWithNothingWritten,
  refundEvents,
  unmatchedTransfer,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { plus } from '../support/decimal-sum';

/*
 * The refunds' review findings (docs/refunds.md), on the real app and database: what
 * a late payment, a reorg, a service address, a customer's form and a retry may no longer do.
 */
describe('Refunds: review findings', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  // Service addresses this suite registers, removed at the end (their network is made up).
  const FAKE_NETWORK = `REFUND_REVIEW_${randomBytes(4).toString('hex')}`;
  const sweepIds: string[] = [];

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Reviewed Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    if (sweepIds.length) {
      await api.dataSource.query(`DELETE FROM sweeps WHERE id = ANY($1)`, [sweepIds]);
    }
    await api.dataSource.query(`DELETE FROM treasury_wallets WHERE network = $1`, [FAKE_NETWORK]);
    await api.dataSource.query(`DELETE FROM wallet_addresses WHERE network = $1`, [FAKE_NETWORK]);
    await api.close();
  });

  const getRefund = async (id: string) =>
    (await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody;
  const form = (sessionId: string, refundId: string, body: object) =>
    postRefundDestination(api, sessionId, refundId, body);
  /** The refund the page offers through the refund's own link, or null (the server says 404). */
  const pageRefund = async (sessionId: string, refundId: string) => {
    const { status, body } = await postRefundFormAccess(api, sessionId, refundId);
    return status === 200 ? body : null;
  };

  /** Expects the refusal in the error envelope, naming `param`, with nothing written. */
  const refused = (send: () => request.Test, status: number, code: string, param: string) =>
    refusedWithNothingWritten(api, merchant, send, status, code, param);

  /** A transfer of the session as the deposit watcher records it. */
  async function sessionTransfer(
    session: { id: string; pay_address: string },
    network: string,
    amount: string,
    status: 'Pending' | 'Confirmed',
  ): Promise<string> {
    const id = newId('ctx');
    await api.dataSource.query(
      `INSERT INTO session_transactions
         (id, session_id, network, tx_hash, log_index, amount, status, block_number, block_hash,
          currency, token_contract, from_address, to_address, amount_base_units, confirmed_at)
       VALUES ($1, $2, $3, $4, 0, $5, $6, 1, '0xblock', 'USDT', 'T-token', 'T-sender', $7,
               $8, CASE WHEN $6 = 'Confirmed' THEN now() END)`,
      [
        id,
        session.id,
        network,
        '0x' + randomBytes(32).toString('hex'),
        amount,
        status,
        session.pay_address,
        String(Math.round(Number(amount) * 1e6)),
      ],
    );
    return id;
  }

  const settle = (sessionId: string) =>
    api.dataSource.transaction((manager) =>
      api.app.get(SessionSettlementService).settle(manager, sessionId),
    );

  describe('finding 1: a late payment on a refunded session', () => {
    it('refuses a session refund while a payment to the session is still confirming', async () => {
      const session = await paidSession(api, merchant, {
        network: 'TRON',
        amount: '100',
        received: '50',
        status: 'Underpaid',
      });
      await sessionTransfer(session, 'TRON', '50', 'Pending');
      const message = await refused(
        () => postSessionRefund(api, merchant, session.id, {}),
        409,
        'invalid_state',
        'id',
      );
      expect(message).toContain('still confirming');
    });

    it('hides the form and refuses the address once the session was paid after the refund', async () => {
      const session = await paidSession(api, merchant, {
        network: 'ETHEREUM',
        amount: '100',
        received: '50',
        status: 'Underpaid',
      });
      const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
      expect(refund).toMatchObject({ status: 'requires_destination', amount: '50' });
      expect((await pageRefund(session.id, refund.id))?.id).toBe(refund.id);
      // Paid after the refund was requested (a payment that slipped in): the merchant decides.
      await api.dataSource.query(
        `UPDATE checkout_sessions SET status = 'Paid', amount_received = 100,
                paid_at = now() + interval '1 second' WHERE id = $1`,
        [session.id],
      );
      expect(await pageRefund(session.id, refund.id)).toBeNull();
      const { text: html } = await request(api.http).get(`/checkout/${session.id}`).expect(200);
      expect(html).not.toContain('refund-form');
      const { body } = await form(session.id, refund.id, {
        to_address: randomEvmAddress(),
      }).expect(409);
      expect(body.error).toMatchObject({ code: 'invalid_state' });
      expect(await getRefund(refund.id)).toMatchObject({
        status: 'requires_destination',
        to_address: null,
      });
      expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(0);
    });

    it("still takes the address of a paid session's refund decided after it was paid (the excess)", async () => {
      const session = await paidSession(api, merchant, {
        network: 'ETHEREUM',
        amount: '100',
        received: '110',
        status: 'Paid',
      });
      await api.dataSource.query(
        `UPDATE checkout_sessions SET paid_at = now() - interval '1 minute' WHERE id = $1`,
        [session.id],
      );
      const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
      expect((await pageRefund(session.id, refund.id))?.id).toBe(refund.id);
      const to = randomEvmAddress();
      await form(session.id, refund.id, { to_address: to }).expect(200);
      expect(await getRefund(refund.id)).toMatchObject({ status: 'Pending', to_address: to });
    });
  });

  describe('finding 2 and 6: unmatched transfer refunds', () => {
    it('requires to_address and the whole amount, writing nothing otherwise', async () => {
      const session = await paidSession(api, merchant, {
        network: 'TRON',
        amount: '10',
        received: '10',
        status: 'Paid',
      });
      const transferId = await unmatchedTransfer(api, merchant, session, {
        network: 'TRON',
        amount: '12.5',
      });
      const post = (body: Record<string, unknown>) =>
        api.post(`/v1/unmatched-transfers/${transferId}/refunds`, merchant, body, {
          'Idempotency-Key': randomUUID(),
        });
      const missing = await refused(() => post({}), 400, 'parameter_missing', 'to_address');
      expect(missing).toContain('to_address');
      await refused(
        () => post({ amount: '12.5', reason: 'wrong order' }),
        400,
        'parameter_missing',
        'to_address',
      );
      const part = await refused(
        () => post({ amount: '10', to_address: randomTronAddress() }),
        422,
        'amount_too_small',
        'amount',
      );
      expect(part).toContain('12.5');
      const { body: refund } = await post({ to_address: randomTronAddress() }).expect(201);
      expect(refund).toMatchObject({ status: 'Pending', amount: '12.5' });
    });
  });

  describe("finding 3: the service's own addresses", () => {
    it('refuses retired wallets, treasury wallets and sweep delegates, in any case, for refunds and payouts', async () => {
      const retired = randomEvmAddress();
      const treasury = randomEvmAddress();
      const delegate = randomEvmAddress();
      await api.dataSource.query(
        `INSERT INTO wallet_addresses (network, role, address) VALUES ($1, 'hot_wallet', $2)`,
        [FAKE_NETWORK, retired],
      );
      await api.dataSource.query(
        `INSERT INTO treasury_wallets (network, role, address) VALUES ($1, 'treasury', $2)`,
        [FAKE_NETWORK, treasury],
      );
      const sweepId = newId('sw');
      sweepIds.push(sweepId);
      await api.dataSource.query(
        `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, kind, delegate,
                             destination, destination_address, sweeper_address, status)
         VALUES ($1, $2, 'USDT', '0xtoken', 6, 'batch', $3, 'treasury', $4, $5, 'Failed')`,
        [sweepId, FAKE_NETWORK, delegate.toLowerCase(), treasury, randomEvmAddress()],
      );
      const session = await paidSession(api, merchant, {
        network: 'ETHEREUM',
        amount: '100',
        received: '100',
        status: 'Underpaid',
      });
      for (const address of [retired, treasury, delegate, retired.toLowerCase()]) {
        const message = await refused(
          () => postSessionRefund(api, merchant, session.id, { amount: '10', to_address: address }),
          400,
          'invalid_address',
          'to_address',
        );
        expect(message).toContain('belongs to this service');
        await refused(
          () =>
            postPayout(api, merchant, {
              amount: '10',
              currency: 'USDT',
              network: 'ETHEREUM',
              to_address: address,
            }),
          400,
          'invalid_address',
          'to_address',
        );
      }
    });
  });

  describe('finding 7: refund destinations are not the merchant’s', () => {
    it('holds a payout to an address only a refund was sent to as a new destination', async () => {
      await api.dataSource.query(
        `UPDATE merchants SET review_new_destinations = true WHERE id = $1`,
        [merchant.id],
      );
      try {
        const session = await paidSession(api, merchant, {
          network: 'TRON',
          amount: '30',
          received: '30',
          status: 'Underpaid',
        });
        const customer = randomTronAddress();
        const { body: refund } = await postSessionRefund(api, merchant, session.id, {
          amount: '10',
          to_address: customer,
        }).expect(201);
        // Its payout completed (by SQL: what hasPaid reads).
        await api.dataSource.query(
          `UPDATE payouts SET status = 'Completed', completed_at = now(), tx_hash = $2
            WHERE refund_id = $1`,
          [refund.id, randomBytes(32).toString('hex')],
        );
        const { body: payout } = await postPayout(api, merchant, {
          amount: '5',
          currency: 'USDT',
          network: 'TRON',
          to_address: customer,
        }).expect(201);
        expect(payout).toMatchObject({
          status: 'Pending',
          pending_reason: 'review_new_destination',
        });
      } finally {
        await api.dataSource.query(
          `UPDATE merchants SET review_new_destinations = false WHERE id = $1`,
          [merchant.id],
        );
      }
    });
  });

  describe('finding 5: a reorg reversing the payment', () => {
    it('cancels the refunds not signed yet that the session no longer covers, releasing their holds', async () => {
      const created = await paidSession(api, merchant, {
        network: 'TRON',
        amount: '100',
        received: '0',
        status: 'Pending',
      });
      const first = await sessionTransfer(created, 'TRON', '30', 'Confirmed');
      await sessionTransfer(created, 'TRON', '30', 'Confirmed');
      await settle(created.id);
      const [{ amount_received: received }] = await api.dataSource.query(
        `SELECT trim_scale(amount_received)::text AS amount_received FROM checkout_sessions
          WHERE id = $1`,
        [created.id],
      );
      expect(received).toBe('60');
      const { body: older } = await postSessionRefund(api, merchant, created.id, {
        amount: '20',
      }).expect(201);
      const { body: sent } = await postSessionRefund(api, merchant, created.id, {
        amount: '5',
        to_address: randomTronAddress(),
      }).expect(201);
      const { body: newer } = await postSessionRefund(api, merchant, created.id, {
        amount: '20',
        to_address: randomTronAddress(),
      }).expect(201);
      // The worker signed `sent` (by SQL: nothing may cancel it now).
      await api.dataSource.query(`UPDATE payouts SET status = 'Processing' WHERE refund_id = $1`, [
        sent.id,
      ]);
      await api.dataSource.query(`UPDATE refunds SET status = 'Processing' WHERE id = $1`, [
        sent.id,
      ]);
      const before = await balanceOf(api, merchant, 'TRON', 'USDT');

      // A reorg takes one payment back: 30 received, 45 promised. The newest unsigned refund
      // (20) goes; 25 then fits.
      await api.dataSource.query(
        `UPDATE session_transactions SET status = 'Reverted', reverted_at = now() WHERE id = $1`,
        [first],
      );
      await settle(created.id);
      expect(await getRefund(newer.id)).toMatchObject({
        status: 'Canceled',
        error_reason: expect.stringContaining('reorganization'),
      });
      expect(await getRefund(older.id)).toMatchObject({ status: 'requires_destination' });
      expect(await getRefund(sent.id)).toMatchObject({ status: 'Processing' });
      expect(await refundEvents(api, merchant, newer.id)).toEqual([
        { type: 'refund.created', previous_status: null, status: 'Pending' },
        { type: 'refund.canceled', previous_status: 'Pending', status: 'Canceled' },
      ]);
      const [payout] = await api.dataSource.query(
        `SELECT status FROM payouts WHERE refund_id = $1`,
        [newer.id],
      );
      expect(payout.status).toBe('Rejected');
      expect(await ledgerLines(api, `refund:${newer.id}:release`)).toHaveLength(2);
      // The hold came back (+20 held -> available), and the reversal took 30 less the fee.
      const after = await balanceOf(api, merchant, 'TRON', 'USDT');
      expect(after!.held).toBe(plus(before!.held, '-20'));
      expect(
        await creditBalanceOf(api, LedgerAccounts.merchantHeld(merchant.id, null, 'TRON', 'USDT')),
      ).toBe(after!.held);

      // The other payment goes too: 0 received; the older unsigned one is canceled, the signed
      // one is left to run.
      await api.dataSource.query(
        `UPDATE session_transactions SET status = 'Reverted', reverted_at = now()
          WHERE session_id = $1`,
        [created.id],
      );
      await settle(created.id);
      expect(await getRefund(older.id)).toMatchObject({ status: 'Canceled' });
      expect(await getRefund(sent.id)).toMatchObject({ status: 'Processing' });
    });
  });

  describe('finding 4: the hosted form', () => {
    it('answers a resubmitted address with the refund, and refuses an EVM address without its checksum', async () => {
      const session = await paidSession(api, merchant, {
        network: 'ETHEREUM',
        amount: '80',
        received: '60',
        status: 'Underpaid',
      });
      const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
      const to = randomEvmAddress();
      const { body: lower } = await form(session.id, refund.id, {
        to_address: to.toLowerCase(),
      }).expect(400);
      expect(lower.error).toMatchObject({ code: 'invalid_address', param: 'to_address' });
      expect(lower.error.message).toContain('checksum');
      expect(await getRefund(refund.id)).toMatchObject({ status: 'requires_destination' });

      const { body: accepted } = await form(session.id, refund.id, { to_address: to }).expect(200);
      expect(accepted).toEqual({
        id: refund.id,
        status: 'Pending',
        to_address: to,
        send_after: null,
      });
      // The retry after a lost answer: the same answer, nothing more written.
      const { body: again } = await form(session.id, refund.id, { to_address: to }).expect(200);
      expect(again).toEqual(accepted);
      expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(1);
      expect((await refundEvents(api, merchant, refund.id)).map((event) => event.type)).toEqual([
        'refund.created',
        'refund.pending',
      ]);
      const { body: other } = await form(session.id, refund.id, {
        to_address: randomEvmAddress(),
      }).expect(409);
      expect(other.error).toMatchObject({ code: 'invalid_state', param: 'to_address' });
    });
  });

  describe('finding 10: cancel and replay', () => {
    it('answers 409 when the refund keeps changing while canceling', async () => {
      const session = await paidSession(api, merchant, {
        network: 'TRON',
        amount: '40',
        received: '40',
        status: 'Underpaid',
      });
      const { body: refund } = await postSessionRefund(api, merchant, session.id, {
        amount: '10',
      }).expect(201);
      // Pending without its payout: what cancel sees when an address arrives between its locks.
      await api.dataSource.query(
        `UPDATE refunds SET status = 'Pending', to_address = $2 WHERE id = $1`,
        [refund.id, randomTronAddress()],
      );
      const { body } = await api.post(`/v1/refunds/${refund.id}/cancel`, merchant, {}).expect(409);
      expect(body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
      await api.dataSource.query(
        `UPDATE refunds SET status = 'requires_destination', to_address = NULL WHERE id = $1`,
        [refund.id],
      );
    });

    it('replays a creation after its sub-merchant was disabled with the stored answer', async () => {
      const psp = await api.createMerchant({ name: 'Replaying PSP', kind: 'psp' });
      await api.post('/v1/sub-merchants', psp, { code: 'shop-r', name: 'shop-r' }).expect(201);
      const [{ id: shop }] = await api.dataSource.query(
        `SELECT id FROM sub_merchants WHERE merchant_id = $1 AND code = 'shop-r'`,
        [psp.id],
      );
      const session = await paidSession(api, psp, {
        network: 'TRON',
        amount: '30',
        received: '30',
        status: 'Underpaid',
        subMerchantCode: 'shop-r',
        subMerchantId: shop,
      });
      const headers = { 'X-Sub-Merchant-Code': 'shop-r', 'Idempotency-Key': randomUUID() };
      const { body: first } = await postSessionRefund(api, psp, session.id, {}, headers).expect(
        201,
      );
      await api.patch('/v1/sub-merchants/shop-r', psp, { status: 'disabled' }).expect(200);
      const { body: replay } = await postSessionRefund(api, psp, session.id, {}, headers).expect(
        201,
      );
      expect(replay).toEqual(first);
      await cleanUpPayouts(api, [psp]);
    });
  });
});
