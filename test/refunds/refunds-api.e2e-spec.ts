import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { LedgerAccounts } from '@app/ledger';
import { PayoutReviews } from '@app/payouts';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  cleanUpPayouts,
  ledgerLines,
  OFFSET_TIMESTAMP,
  randomEvmAddress,
  randomTronAddress,
  subMerchantId,
} from '../support/payouts-api';
import {
  creditBalanceOf,
  paidSession,
  postRefundDestination,
  postRefundFormAccess,
  postSessionRefund,
  REFUND_ID,
  refundSecret,
  refusedWithNothingWritten,
  RefundBody,
  refundEvents,
  unmatchedTransfer,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { plus } from '../support/decimal-sum';

const EVM_BAD_CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'; // EIP-55 vector, last case flipped
const TRON_BAD_CHECKSUM = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9'; // ...Tv8 is valid
// Built-in network fees (PAYOUT_NETWORK_FEES is not set in the test environment).
const TRON_FEE = '1';

/*
 * The refunds API on the real app and database: creation from sessions and unmatched transfers,
 * every refusal (4xx naming the field, nothing written), idempotency, sub-merchant scope, the
 * hosted page's destination form, cancel, the ledger and refund.* events, and that a refund's
 * payout stays internal. Sending on a chain: test/refunds/refunds-processing-evm.e2e-spec.ts.
 */
describe('Refunds API', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let other: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Refunding Shop' });
    other = await api.createMerchant({ name: 'Other Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant, other]);
    await api.close();
  });

  const getRefund = async (owner: TestMerchant, id: string) =>
    (await api.get(`/v1/refunds/${id}`, owner).expect(200)).body as RefundBody;

  /** Expects the refusal in the error envelope, naming `param`, with nothing written. */
  async function refused(
    send: () => request.Test,
    owner: TestMerchant,
    status: number,
    code: string,
    param: string,
  ): Promise<string> {
    const message = await refusedWithNothingWritten(api, owner, send, status, code, param);
    expect(message).toEqual(expect.any(String));
    return message;
  }

  it('refunds the whole of an underpaid session by default, waiting for the address, with the amount held', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });
    const before = await balanceOf(api, merchant, 'TRON', 'USDT');
    const { body: refund } = await postSessionRefund(api, merchant, session.id, {
      reason: 'Order canceled',
    }).expect(201);
    expect(refund).toEqual({
      id: expect.stringMatching(REFUND_ID),
      session_id: session.id,
      unmatched_transfer_id: null,
      status: 'requires_destination',
      livemode: false,
      amount: '40',
      fee: TRON_FEE,
      net_amount: '39',
      currency: 'USDT',
      network: 'TRON',
      to_address: null,
      // The customer's link: the session's page, the refund and its secret in the fragment.
      destination_url: `http://pay.test.example/checkout/${session.id}#refund=${refund.id}&secret=${refundSecret(api, refund.id)}`,
      send_after: null,
      tx_hash: null,
      reason: 'Order canceled',
      error_reason: null,
      created_at: expect.stringMatching(OFFSET_TIMESTAMP),
      completed_at: null,
      sub_merchant_code: null,
    });
    expect(await getRefund(merchant, refund.id)).toEqual(refund);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
      available: plus(before!.available, '-40'),
      held: plus(before!.held, '40'),
    });
    expect(await ledgerLines(api, `refund:${refund.id}:hold`)).toEqual([
      {
        kind: 'refund_hold',
        account: LedgerAccounts.merchant(merchant.id, null, 'TRON', 'USDT'),
        amount: '40',
      },
      {
        kind: 'refund_hold',
        account: LedgerAccounts.merchantHeld(merchant.id, null, 'TRON', 'USDT'),
        amount: '-40',
      },
    ]);
    expect(await refundEvents(api, merchant, refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
    ]);
    // Nothing is sent before the customer says where.
    expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(0);
  });

  it('refunds the excess of an overpaid session by default, and then needs an amount', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '100',
      received: '130',
      status: 'Paid',
    });
    const { body: excess } = await postSessionRefund(api, merchant, session.id).expect(201);
    expect(excess).toMatchObject({ amount: '30', fee: TRON_FEE, net_amount: '29' });
    const message = await refused(
      () => postSessionRefund(api, merchant, session.id),
      merchant,
      400,
      'parameter_missing',
      'amount',
    );
    expect(message).toContain('at most 100 USDT');
    // What is left can still be given back when the merchant names it.
    const { body: rest } = await postSessionRefund(api, merchant, session.id, {
      amount: '100',
    }).expect(201);
    expect(rest.amount).toBe('100');
    await refused(
      () => postSessionRefund(api, merchant, session.id, { amount: '2.5' }),
      merchant,
      422,
      'amount_above_refundable',
      'amount',
    );
  });

  it('refuses every bad input with a 4xx naming the field, and writes nothing', async () => {
    const tron = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '50',
      received: '50',
      status: 'Paid',
    });
    const evm = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '50',
      status: 'Paid',
    });
    const refundOf = (sessionId: string, body: Record<string, unknown>) => () =>
      postSessionRefund(api, merchant, sessionId, body);
    // A Paid session without excess: only the merchant knows how much.
    await refused(refundOf(tron.id, {}), merchant, 400, 'parameter_missing', 'amount');
    await refused(
      () => api.post(`/v1/checkout/sessions/${tron.id}/refunds`, merchant, { amount: '10' }),
      merchant,
      400,
      'parameter_missing',
      'Idempotency-Key',
    );
    // Not above twice the fee (1 USDT on TRON): the minimum is named.
    const small = await refused(
      refundOf(tron.id, { amount: '2' }),
      merchant,
      422,
      'amount_too_small',
      'amount',
    );
    expect(small).toContain('above 2 USDT');
    await refused(
      refundOf(tron.id, { amount: '50.000001' }),
      merchant,
      422,
      'amount_above_refundable',
      'amount',
    );
    await refused(refundOf(tron.id, { amount: 10 }), merchant, 400, 'parameter_invalid', 'amount');
    await refused(
      refundOf(tron.id, { amount: '10.0000001' }),
      merchant,
      400,
      'parameter_invalid',
      'amount',
    );
    await refused(
      refundOf(tron.id, { amount: '10', to_address: TRON_BAD_CHECKSUM }),
      merchant,
      400,
      'invalid_address',
      'to_address',
    );
    await refused(
      refundOf(tron.id, { amount: '10', to_address: randomEvmAddress() }),
      merchant,
      400,
      'invalid_address',
      'to_address',
    );
    await refused(
      refundOf(tron.id, { amount: '10', to_address: tron.pay_address }),
      merchant,
      400,
      'invalid_address',
      'to_address',
    );
    await refused(
      refundOf(evm.id, { amount: '10', to_address: EVM_BAD_CHECKSUM }),
      merchant,
      400,
      'invalid_address',
      'to_address',
    );
    await refused(
      refundOf(evm.id, { amount: '10', to_address: randomTronAddress() }),
      merchant,
      400,
      'invalid_address',
      'to_address',
    );
    await refused(
      refundOf(tron.id, { amount: '10', reason: 'x'.repeat(501) }),
      merchant,
      400,
      'parameter_invalid',
      'reason',
    );
    await refused(
      refundOf(tron.id, { amount: '10', currency: 'USDC' }),
      merchant,
      400,
      'parameter_invalid',
      'currency',
    );
    // Another merchant's session is indistinguishable from an unknown one.
    await refused(
      () => postSessionRefund(api, other, tron.id, { amount: '10' }),
      other,
      404,
      'resource_missing',
      'id',
    );
    await refused(
      refundOf('cs_doesnotexist', { amount: '10' }),
      merchant,
      404,
      'resource_missing',
      'id',
    );
    // The balance must cover it, as for a payout (here 30 of the 40 received were spent).
    const spent = await paidSession(api, other, {
      network: 'TRON',
      amount: '40',
      received: '40',
      status: 'Paid',
    });
    await creditBalance(api.dataSource, {
      merchantId: other.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '-30',
    });
    await refused(
      () => postSessionRefund(api, other, spent.id, { amount: '20' }),
      other,
      422,
      'insufficient_balance',
      'amount',
    );
  });

  it('replays a retried request and refuses the same key with another body', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '20',
      received: '20',
      status: 'Underpaid',
    });
    const key = randomUUID();
    const first = await postSessionRefund(
      api,
      merchant,
      session.id,
      {},
      { 'Idempotency-Key': key },
    ).expect(201);
    const again = await postSessionRefund(
      api,
      merchant,
      session.id,
      {},
      { 'Idempotency-Key': key },
    ).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(1);
    const { body } = await postSessionRefund(
      api,
      merchant,
      session.id,
      { amount: '5' },
      { 'Idempotency-Key': key },
    ).expect(409);
    expect(body.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(1);
  });

  it("acts for a PSP's sub-merchant only where the header allows, from the sub-merchant's balance", async () => {
    const psp = await api.createMerchant({ name: 'PSP', kind: 'psp' });
    for (const code of ['shop-a', 'shop-b'])
      await api.post('/v1/sub-merchants', psp, { code, name: code }).expect(201);
    const shopA = await subMerchantId(api, psp, 'shop-a');
    const session = await paidSession(api, psp, {
      network: 'TRON',
      amount: '30',
      received: '30',
      status: 'Underpaid',
      subMerchantCode: 'shop-a',
      subMerchantId: shopA,
    });
    await refused(
      () => postSessionRefund(api, psp, session.id, {}, { 'X-Sub-Merchant-Code': 'shop-b' }),
      psp,
      404,
      'resource_missing',
      'id',
    );
    await refused(
      () => postSessionRefund(api, psp, session.id, {}, { 'X-Sub-Merchant-Code': 'nope' }),
      psp,
      400,
      'invalid_sub_merchant_code',
      'X-Sub-Merchant-Code',
    );
    const { body: direct } = await postSessionRefund(
      api,
      merchant,
      session.id,
      {},
      { 'X-Sub-Merchant-Code': 'shop-a' },
    ).expect(403);
    expect(direct.error.code).toBe('permission_denied');
    const { body: refund } = await postSessionRefund(
      api,
      psp,
      session.id,
      {},
      { 'X-Sub-Merchant-Code': 'shop-a' },
    ).expect(201);
    expect(refund).toMatchObject({ amount: '30', sub_merchant_code: 'shop-a' });
    expect(await balanceOf(api, psp, 'TRON', 'USDT', 'shop-a')).toEqual({
      available: '0',
      held: '30',
    });
    // Lists: own by default (none), all, or one sub-merchant's.
    const list = async (query: string) =>
      ((await api.get(`/v1/refunds${query}`, psp).expect(200)).body as RefundBody[]).map(
        (item) => item.id,
      );
    expect(await list('')).toEqual([]);
    expect(await list('?include_sub_merchants=true')).toEqual([refund.id]);
    expect(await list('?sub_merchant_code=shop-a')).toEqual([refund.id]);
    expect(await list('?sub_merchant_code=shop-b')).toEqual([]);
  });

  it('sends a refund with an address through an internal payout that stays out of /v1/payouts', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '25',
      received: '25',
      status: 'Underpaid',
    });
    const to = randomTronAddress();
    const { body: refund } = await postSessionRefund(api, merchant, session.id, {
      to_address: to,
    }).expect(201);
    expect(refund).toMatchObject({ status: 'Pending', to_address: to, amount: '25', fee: '1' });
    const payouts: Array<Record<string, string>> = await api.dataSource.query(
      `SELECT id, status, trim_scale(amount)::text AS amount, trim_scale(fee)::text AS fee,
              trim_scale(net_amount)::text AS net_amount, to_address, merchant_id
         FROM payouts WHERE refund_id = $1`,
      [refund.id],
    );
    expect(payouts).toEqual([
      {
        id: expect.stringMatching(/^po_/),
        status: 'Pending',
        amount: '25',
        fee: '1',
        net_amount: '24',
        to_address: to,
        merchant_id: merchant.id,
      },
    ]);
    const payoutId = payouts[0].id;
    await api.get(`/v1/payouts/${payoutId}`, merchant).expect(404);
    const listed = (await api.get('/v1/payouts?include_sub_merchants=true', merchant).expect(200))
      .body as Array<{ id: string }>;
    expect(listed.map((item) => item.id)).not.toContain(payoutId);
    expect(await api.count('events', 'object_id = $1', [payoutId])).toBe(0);
    expect(await refundEvents(api, merchant, refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
    ]);
    // Held once, by the refund: the payout posts no hold of its own.
    expect(await ledgerLines(api, `payout:${payoutId}:hold`)).toEqual([]);
  });

  it('takes the customer’s address from the hosted page form, once, checked like a payout’s', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '80',
      received: '60',
      status: 'Underpaid',
    });
    const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
    const form = (sessionId: string, refundId: string, body: object) =>
      postRefundDestination(api, sessionId, refundId, body);
    const untouched = async () => {
      expect((await getRefund(merchant, refund.id)).status).toBe('requires_destination');
      expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(0);
    };
    for (const [body, code] of [
      [{ to_address: EVM_BAD_CHECKSUM }, 'invalid_address'],
      [{ to_address: randomTronAddress() }, 'invalid_address'],
      [{ to_address: session.pay_address }, 'invalid_address'],
      [{}, 'parameter_missing'],
    ] as const) {
      const { body: error } = await form(session.id, refund.id, body).expect(400);
      expect(error.error).toMatchObject({ code, param: 'to_address' });
      await untouched();
    }
    // The refund must be this session's.
    const elsewhere = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '5',
      received: '5',
      status: 'Underpaid',
    });
    await form(elsewhere.id, refund.id, { to_address: randomEvmAddress() }).expect(404);
    await untouched();

    // The page has the form, hidden and naming no refund: its script asks for the refund its
    // link names, and only the refund's own secret gets its amounts.
    const { body: state } = await request(api.http)
      .get(`/checkout/${session.id}/state`)
      .expect(200);
    expect(state).not.toHaveProperty('refund');
    const { text: html } = await request(api.http).get(`/checkout/${session.id}`).expect(200);
    expect(html).toContain(`data-refunds="/checkout/${session.id}/refunds" hidden>`);
    expect(html).toContain('id="refund-form"');
    expect(html).not.toContain(refund.id);
    expect(html).not.toContain('is refunding you 57');
    const { body: access } = await postRefundFormAccess(api, session.id, refund.id).expect(200);
    expect(access).toEqual({
      id: refund.id,
      amount: '60',
      fee: '3',
      net_amount: '57',
      expires_at: expect.any(String),
      delay_minutes: 0,
    });
    await postRefundFormAccess(api, session.id, refund.id, null).expect(404);

    // The customer types it once: only the checksummed (EIP-55) form is taken on the page.
    const to = randomEvmAddress();
    const { body: unchecked } = await form(session.id, refund.id, {
      to_address: to.toLowerCase(),
    }).expect(400);
    expect(unchecked.error).toMatchObject({ code: 'invalid_address', param: 'to_address' });
    await untouched();
    const { body: accepted } = await form(session.id, refund.id, { to_address: to }).expect(200);
    expect(accepted).toEqual({
      id: refund.id,
      status: 'Pending',
      to_address: to,
      send_after: null,
    });
    expect(await getRefund(merchant, refund.id)).toMatchObject({
      status: 'Pending',
      to_address: to,
    });
    expect(await api.count('payouts', `refund_id = $1 AND to_address = $2`, [refund.id, to])).toBe(
      1,
    );
    expect(await refundEvents(api, merchant, refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
      { type: 'refund.pending', previous_status: 'requires_destination', status: 'Pending' },
    ]);
    // Taken: the link opens nothing any more.
    await postRefundFormAccess(api, session.id, refund.id).expect(404);
    // Given once: another address is refused.
    const { body: again } = await form(session.id, refund.id, {
      to_address: randomEvmAddress(),
    }).expect(409);
    expect(again.error).toMatchObject({ code: 'invalid_state', param: 'to_address' });
    expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(1);
  });

  it('cancels a refund not sent yet, releasing its amount, and refuses once it is on its way', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '90',
      received: '90',
      status: 'Underpaid',
    });
    const start = await balanceOf(api, merchant, 'TRON', 'USDT');
    const { body: waiting } = await postSessionRefund(api, merchant, session.id, {
      amount: '10',
    }).expect(201);
    const { body: pending } = await postSessionRefund(api, merchant, session.id, {
      amount: '20',
      to_address: randomTronAddress(),
    }).expect(201);
    const { body: sent } = await postSessionRefund(api, merchant, session.id, {
      amount: '30',
      to_address: randomTronAddress(),
    }).expect(201);

    const { body: canceled } = await api
      .post(`/v1/refunds/${waiting.id}/cancel`, merchant, {})
      .expect(200);
    expect(canceled).toMatchObject({ id: waiting.id, status: 'Canceled' });
    const { body: canceledPending } = await api
      .post(`/v1/refunds/${pending.id}/cancel`, merchant, {})
      .expect(200);
    expect(canceledPending.status).toBe('Canceled');
    const [payoutOfPending]: Array<{ status: string }> = await api.dataSource.query(
      `SELECT status FROM payouts WHERE refund_id = $1`,
      [pending.id],
    );
    expect(payoutOfPending.status).toBe('Rejected');
    expect(await refundEvents(api, merchant, pending.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
      { type: 'refund.canceled', previous_status: 'Pending', status: 'Canceled' },
    ]);
    expect(await ledgerLines(api, `refund:${pending.id}:release`)).toEqual([
      {
        kind: 'refund_release',
        account: LedgerAccounts.merchantHeld(merchant.id, null, 'TRON', 'USDT'),
        amount: '20',
      },
      {
        kind: 'refund_release',
        account: LedgerAccounts.merchant(merchant.id, null, 'TRON', 'USDT'),
        amount: '-20',
      },
    ]);
    // Only the third one (30) is still held; the canceled amounts count as refundable again.
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
      available: plus(start!.available, '-30'),
      held: plus(start!.held, '30'),
    });
    await postSessionRefund(api, merchant, session.id, { amount: '60.000001' }).expect(422);

    // The worker signs the third: it is Processing, and can no longer be canceled.
    await movePayoutOf(sent.id, 'Processing', { tx_hash: 'a'.repeat(64) });
    expect(await getRefund(merchant, sent.id)).toMatchObject({
      status: 'Processing',
      tx_hash: 'a'.repeat(64),
    });
    for (const id of [sent.id, waiting.id]) {
      const { body } = await api.post(`/v1/refunds/${id}/cancel`, merchant, {}).expect(409);
      expect(body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    }
    await api.post(`/v1/refunds/${sent.id}/cancel`, other, {}).expect(404);
    expect(await refundEvents(api, merchant, sent.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
      { type: 'refund.processing', previous_status: 'Pending', status: 'Processing' },
    ]);
  });

  it('fails a refund whose payout an operator rejects, and gives the amount back', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '15',
      received: '15',
      status: 'Underpaid',
    });
    const start = await balanceOf(api, merchant, 'TRON', 'USDT');
    const { body: refund } = await postSessionRefund(api, merchant, session.id, {
      to_address: randomTronAddress(),
    }).expect(201);
    const [{ id: payoutId }]: Array<{ id: string }> = await api.dataSource.query(
      `SELECT id FROM payouts WHERE refund_id = $1`,
      [refund.id],
    );
    await api.app.get(PayoutReviews).reject(payoutId, 'ops@example', 'suspicious destination');
    expect(await getRefund(merchant, refund.id)).toMatchObject({
      status: 'Failed',
      error_reason: 'Rejected at review: suspicious destination',
    });
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(start);
    expect((await refundEvents(api, merchant, refund.id)).map((event) => event.type)).toEqual([
      'refund.created',
      'refund.failed',
    ]);
    // A failed refund gives its amount back to what may be refunded.
    await postSessionRefund(api, merchant, session.id, { amount: '15' }).expect(201);
  });

  it('lists refunds newest first with the list conventions, filtered by session and status', async () => {
    const shop = await api.createMerchant({ name: 'Lister' });
    const session = await paidSession(api, shop, {
      network: 'TRON',
      amount: '100',
      received: '100',
      status: 'Underpaid',
    });
    const ids: string[] = [];
    for (const amount of ['10', '11', '12']) {
      const { body } = await postSessionRefund(api, shop, session.id, { amount }).expect(201);
      ids.push(body.id);
    }
    await api.post(`/v1/refunds/${ids[0]}/cancel`, shop, {}).expect(200);
    const page = await api.get('/v1/refunds?page_size=2', shop).expect(200);
    expect(page.headers['x-total-count']).toBe('3');
    expect(page.headers.link).toContain('rel="next"');
    expect(page.body.map((item: RefundBody) => item.id)).toEqual([ids[2], ids[1]]);
    const bySession = await api.get(`/v1/refunds?session_id=${session.id}`, shop).expect(200);
    expect(bySession.body).toHaveLength(3);
    const canceled = await api.get('/v1/refunds?status=Canceled', shop).expect(200);
    expect(canceled.body.map((item: RefundBody) => item.id)).toEqual([ids[0]]);
    const { body: bad } = await api.get('/v1/refunds?status=Done', shop).expect(400);
    expect(bad.error).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    expect((await api.get('/v1/refunds', other).expect(200)).body).toEqual([]);
    await api.get(`/v1/refunds/${ids[1]}`, other).expect(404);
    await api.get('/v1/refunds/re_unknown', shop).expect(404);
  });

  it('refunds an unmatched transfer once, from unmatched and never from the merchant’s balance', async () => {
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
    const balance = await balanceOf(api, merchant, 'TRON', 'USDT');
    const unmatchedBefore = await creditBalanceOf(api, LedgerAccounts.unmatched('TRON', 'USDT'));
    const post = (owner: TestMerchant, body: Record<string, unknown> = {}) =>
      api.post(`/v1/unmatched-transfers/${transferId}/refunds`, owner, body, {
        'Idempotency-Key': randomUUID(),
      });
    await refused(
      () => post(other, { to_address: randomTronAddress() }),
      other,
      404,
      'resource_missing',
      'id',
    );
    await refused(
      () => post(merchant, { amount: '12.6', to_address: randomTronAddress() }),
      merchant,
      422,
      'amount_above_refundable',
      'amount',
    );
    await refused(
      () => api.post(`/v1/unmatched-transfers/${transferId}/refunds`, merchant, {}),
      merchant,
      400,
      'parameter_missing',
      'Idempotency-Key',
    );
    // Its address is required (an unmatched transfer has no page to give it on).
    await refused(() => post(merchant), merchant, 400, 'parameter_missing', 'to_address');
    const { body: refund } = await post(merchant, { to_address: randomTronAddress() }).expect(201);
    expect(refund).toMatchObject({
      session_id: null,
      unmatched_transfer_id: transferId,
      status: 'Pending',
      amount: '12.5',
      net_amount: '11.5',
    });
    // Held from unmatched into refund_hold: neither of the merchant's balances moves, the money
    // was never the merchant's (review finding 8).
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balance);
    expect(await creditBalanceOf(api, LedgerAccounts.unmatched('TRON', 'USDT'))).toBe(
      plus(unmatchedBefore, '-12.5'),
    );
    const { body: twice } = await post(merchant, { to_address: randomTronAddress() }).expect(409);
    expect(twice.error).toMatchObject({ code: 'resource_already_exists', param: 'id' });
    // Canceled, it goes back to unmatched, and can be refunded again.
    await api.post(`/v1/refunds/${refund.id}/cancel`, merchant, {}).expect(200);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balance);
    expect(await creditBalanceOf(api, LedgerAccounts.unmatched('TRON', 'USDT'))).toBe(
      unmatchedBefore,
    );
    const { body: second } = await post(merchant, { to_address: randomTronAddress() }).expect(201);
    // Its payout failing brings the amount back to unmatched, not to the merchant.
    await movePayoutOf(second.id, 'Failed', { error_reason: 'reverted' });
    expect(await getRefund(merchant, second.id)).toMatchObject({
      status: 'Failed',
      error_reason: 'reverted',
    });
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balance);
    expect(await creditBalanceOf(api, LedgerAccounts.unmatched('TRON', 'USDT'))).toBe(
      unmatchedBefore,
    );

    const reverted = await unmatchedTransfer(api, merchant, session, {
      network: 'TRON',
      amount: '5',
      status: 'reverted',
    });
    const { body: gone } = await api
      .post(
        `/v1/unmatched-transfers/${reverted}/refunds`,
        merchant,
        { to_address: randomTronAddress() },
        {
          'Idempotency-Key': randomUUID(),
        },
      )
      .expect(409);
    expect(gone.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    const unconfirmed = await unmatchedTransfer(api, merchant, session, {
      network: 'TRON',
      amount: '5',
      booked: false,
    });
    const { body: early } = await api
      .post(
        `/v1/unmatched-transfers/${unconfirmed}/refunds`,
        merchant,
        { to_address: randomTronAddress() },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(409);
    expect(early.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    expect(early.error.message).toContain('not confirmed yet');
  });

  /**
   * Moves a refund's payout as the payout worker would (status, then PayoutEvents in the same
   * transaction, a failure with its release entry), without a chain.
   */
  async function movePayoutOf(
    refundId: string,
    status: 'Processing' | 'Failed',
    fields: { tx_hash?: string; error_reason?: string },
  ): Promise<void> {
    const { PayoutEvents } = await import('@app/payouts/payout-events');
    const { releaseEntry } = await import('@app/payouts');
    const { LedgerService } = await import('@app/ledger');
    await api.dataSource.transaction(async (manager) => {
      const [payout] = await manager.query(
        `SELECT * FROM payouts WHERE refund_id = $1 FOR UPDATE`,
        [refundId],
      );
      await manager.query(
        `UPDATE payouts SET status = $2, tx_hash = COALESCE($3, tx_hash),
                error_reason = COALESCE($4, error_reason) WHERE id = $1`,
        [payout.id, status, fields.tx_hash ?? null, fields.error_reason ?? null],
      );
      if (status === 'Failed') {
        await api.app.get(LedgerService).post(manager, releaseEntry(payout));
      }
      await api.app.get(PayoutEvents).statusChanged(manager, payout.id, payout.status);
    });
  }
});
