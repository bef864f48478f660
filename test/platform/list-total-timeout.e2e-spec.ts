import { configureListTotals } from '@app/common';
import { overrideEnvironment } from '../support/environment';
import { TestApi, TestMerchant } from '../support/test-app';

const EVENTS = '/v1/events';
const SEEDED = 200_000;

/**
 * Exact list totals (`include_total=true`) are counted under DATABASE_LIST_TOTAL_TIMEOUT_MS, a
 * tighter limit than the API's statement timeout: a count that runs past it leaves the list a
 * 200 with `X-Total-Count-At-Least`, not a 503. 200,000 real events make the count slow: no
 * PostgreSQL counts them in a millisecond.
 */
describe('List totals under their own time limit', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let environment: { restore(): void };

  beforeAll(async () => {
    environment = overrideEnvironment({
      DATABASE_LIST_TOTAL_TIMEOUT_MS: '1',
      DATABASE_STATEMENT_TIMEOUT_MS: '60000',
    });
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Busy Shop' });
    await api.dataSource.query(
      `INSERT INTO events (id, merchant_id, livemode, type, object_type, object_id, sequence, data,
                           created_at)
       SELECT 'evt_total_' || i, $1, false, 'checkout_session.created', 'checkout_session',
              'cs_total_' || i, 1, '{}'::json, now() - make_interval(secs => i)
         FROM generate_series(1, $2::int) i`,
      [merchant.id, SEEDED],
    );
    await api.dataSource.query(`ANALYZE events`);
  }, 240_000);

  afterAll(async () => {
    await api?.dataSource.query(`DELETE FROM events WHERE merchant_id = $1`, [merchant.id]);
    await api?.close();
    environment?.restore();
  });

  it('answers 200 with a lower bound when the exact count runs out of time', async () => {
    const response = await api.get(`${EVENTS}?include_total=true&page_size=10`, merchant);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(10);
    expect(response.headers['x-total-count']).toBeUndefined();
    const atLeast = Number(response.headers['x-total-count-at-least']);
    expect(atLeast).toBeGreaterThanOrEqual(11);
    expect(atLeast).toBeLessThanOrEqual(SEEDED);
    // No `last` link without an exact total; `next` still pages on.
    expect(response.headers.link).toContain('rel="next"');
    expect(response.headers.link).not.toContain('rel="last"');
    // The connection went back to the pool with the API's own limit, not the count's.
    const settings: Array<{ statement_timeout: string }> =
      await api.dataSource.query(`SHOW statement_timeout`);
    expect(settings[0].statement_timeout).toBe('1min');
  });

  it('counts exactly when the count finishes in time', async () => {
    configureListTotals({ timeoutMs: 120_000 });
    try {
      const response = await api.get(`${EVENTS}?include_total=true&page_size=10`, merchant);
      expect(response.status).toBe(200);
      expect(response.headers['x-total-count']).toBe(String(SEEDED));
    } finally {
      configureListTotals({ timeoutMs: 1 });
    }
  });
});
