import { randomUUID } from 'node:crypto';
import request from 'supertest';
import Decimal from 'decimal.js';
import { balanceOf, ledgerLines, postPayout, randomTronAddress } from '../support/payouts-api';
import { creditBalance } from '../support/ledger-credit';
import { TestApi, TestMerchant } from '../support/test-app';

const helper = (id: string, action: string) => `/v1/test-helpers/payouts/${id}/${action}`;

describe('Sandbox test helpers: payouts completed or failed without a chain (real PostgreSQL)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Payout Sandbox Shop' });
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
  });

  afterAll(() => api?.close());

  async function createPayout(amount = '100'): Promise<{ id: string; fee: string }> {
    const { body } = await postPayout(api, merchant, {
      amount,
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    }).expect(201);
    expect(body.status).toBe('Pending');
    return body;
  }

  async function eventsOf(payoutId: string): Promise<string[]> {
    const rows: Array<{ type: string }> = await api.dataSource.query(
      `SELECT type FROM events WHERE object_id = $1 ORDER BY sequence`,
      [payoutId],
    );
    return rows.map((row) => row.type);
  }

  it('complete: Completed with a synthetic hash, the hold spent, books out of simulated:', async () => {
    const before = await balanceOf(api, merchant, 'TRON', 'USDT');
    const payout = await createPayout('100');
    const completed = await api.post(helper(payout.id, 'complete'), merchant, {}).expect(200);
    expect(completed.body).toMatchObject({ id: payout.id, status: 'Completed' });
    expect(completed.body.tx_hash).toMatch(/^sim_[0-9a-f]{60}$/);
    expect(await eventsOf(payout.id)).toEqual(['payout.created', 'payout.completed']);
    const after = await balanceOf(api, merchant, 'TRON', 'USDT');
    expect(new Decimal(after!.available).toFixed()).toBe(
      new Decimal(before!.available).minus(100).toFixed(),
    );
    expect(new Decimal(after!.held).toFixed()).toBe(new Decimal(before!.held).toFixed());
    const lines = await ledgerLines(api, `payout:${payout.id}:completed`);
    expect(lines.map((line) => line.account.split(':')[0]).sort()).toEqual(
      ['fees', 'merchant_held', 'simulated'].filter(
        (kind) => kind !== 'fees' || !new Decimal(payout.fee).isZero(),
      ),
    );
    expect(lines.every((line) => line.kind === 'payout')).toBe(true);
    // Ended: neither helper moves it again.
    await api.post(helper(payout.id, 'complete'), merchant, {}).expect(409);
    await api.post(helper(payout.id, 'fail'), merchant, { reason: 'late' }).expect(409);
  });

  it('fail: Failed with the reason, the hold released exactly once', async () => {
    const before = await balanceOf(api, merchant, 'TRON', 'USDT');
    const payout = await createPayout('40');
    const held = await balanceOf(api, merchant, 'TRON', 'USDT');
    expect(new Decimal(held!.held).minus(before!.held).toFixed()).toBe('40');
    const key = randomUUID();
    const send = () =>
      api.post(
        helper(payout.id, 'fail'),
        merchant,
        { reason: 'simulated: rejected' },
        {
          'Idempotency-Key': key,
        },
      );
    const failed = await send().expect(200);
    expect(failed.body).toMatchObject({ status: 'Failed', error_reason: 'simulated: rejected' });
    const replayed = await send().expect(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    await api.post(helper(payout.id, 'fail'), merchant, { reason: 'again' }).expect(409);
    const after = await balanceOf(api, merchant, 'TRON', 'USDT');
    expect(after).toEqual(before);
    expect(
      await api.count(
        'ledger_entries',
        `reference LIKE 'payout:' || $1 || ':%' AND kind = 'payout_release'`,
        [payout.id],
      ),
    ).toBe(1);
    expect(await eventsOf(payout.id)).toEqual(['payout.created', 'payout.failed']);
  });

  it('a payout the worker already claimed ends on chain, not here', async () => {
    const payout = await createPayout('10');
    // What the worker's claim leaves: an attempt (its signed transaction) and Processing.
    await api.dataSource.query(`UPDATE payouts SET status = 'Processing' WHERE id = $1`, [
      payout.id,
    ]);
    const refused = await api.post(helper(payout.id, 'complete'), merchant, {}).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
    await api.post(helper(payout.id, 'fail'), merchant, { reason: 'x' }).expect(409);
    expect(await eventsOf(payout.id)).toEqual(['payout.created']);

    // Pending again with an attempt the worker gave up (its transaction may still be mined).
    const retried = await createPayout('10');
    await api.dataSource.query(
      `INSERT INTO payout_attempts (payout_id, attempt_number, network, wallet_address, tx_hash,
         raw_transaction, status)
       VALUES ($1, 1, 'TRON', 'TWallet', $2, 'signed', 'Expired')`,
      [retried.id, `test_${retried.id}`],
    );
    const sent = await api.post(helper(retried.id, 'complete'), merchant, {}).expect(409);
    expect(sent.body.error.message).toContain('already sent to the network');
    await api.post(helper(retried.id, 'fail'), merchant, { reason: 'x' }).expect(409);
  });

  it("another merchant's payout is a 404, a live key a missing route, a bad reason a 400", async () => {
    const payout = await createPayout('5');
    const other = await api.createMerchant({ name: 'Other Payout Shop' });
    for (const action of ['complete', 'fail']) {
      const missing = await api.post(helper(payout.id, action), other, { reason: 'x' }).expect(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      const live = await request(api.http)
        .post(helper(payout.id, action))
        .set('Authorization', `Bearer sk_live_${'B'.repeat(43)}`)
        .send({ reason: 'x' })
        .expect(404);
      expect(live.body.error.code).toBe('route_not_found');
    }
    for (const body of [{}, { reason: '' }, { reason: 7 }, { reason: 'x'.repeat(501) }]) {
      const refused = await api.post(helper(payout.id, 'fail'), merchant, body).expect(400);
      expect(refused.body.error.param).toBe('reason');
    }
    const [row]: Array<{ status: string }> = await api.dataSource.query(
      `SELECT status FROM payouts WHERE id = $1`,
      [payout.id],
    );
    expect(row.status).toBe('Pending');
  });
});
