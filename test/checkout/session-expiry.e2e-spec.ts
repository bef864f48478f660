import { SessionExpiryService } from '@app/checkout';
import { TestApi } from '../support/test-app';

const SESSIONS = 5000;

describe('Session expiry keeps up with creation (real PostgreSQL)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(() => api?.close());

  it('settles a backlog of 5,000 due sessions in one run, each with its event', async () => {
    const merchant = await api.createMerchant();
    const created = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    // Copies of a real session with their own ids and addresses, all past their expiry.
    await api.dataSource.query(
      `INSERT INTO checkout_sessions (id, merchant_id, livemode, status, amount, currency, network,
         chain_family, currency_contract, pay_address, key_fingerprint, derivation_index,
         pricing_amount, pricing_currency, exchange_rate, created_at, expires_at, fee_percent,
         fee_fixed)
       SELECT 'cs_expiry' || lpad(g::text, 16, '0'), t.merchant_id, t.livemode, t.status, t.amount,
              t.currency, t.network, t.chain_family, t.currency_contract, 'Texpiry' || g,
              t.key_fingerprint, 2000000000 - g, t.pricing_amount, t.pricing_currency,
              t.exchange_rate, now() - interval '2 hours', now() - make_interval(secs => g),
              t.fee_percent, t.fee_fixed
         FROM checkout_sessions t, generate_series(1, $2::int) g
        WHERE t.id = $1`,
      [created.body.id, SESSIONS - 1],
    );
    await api.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [created.body.id],
    );

    // One run of the worker's job (it runs every second): before, 500 per run (100 a second).
    const settled = await api.app.get(SessionExpiryService).expireDue({ budgetMs: 120_000 });

    expect(settled).toBe(SESSIONS);
    const byStatus = (status: string) =>
      api.count('checkout_sessions', 'merchant_id = $1 AND status = $2', [merchant.id, status]);
    expect(await byStatus('Pending')).toBe(0);
    expect(await byStatus('Expired')).toBe(SESSIONS);
    expect(
      await api.count('events', `type = 'checkout.session.expired' AND merchant_id = $1`, [
        merchant.id,
      ]),
    ).toBe(SESSIONS);
    await api.get(`/v1/checkout/sessions/${created.body.id}`, merchant).expect(200, /"Expired"/);
  });
});
