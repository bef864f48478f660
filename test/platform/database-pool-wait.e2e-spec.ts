import { Client } from 'pg';
import type { Response } from 'supertest';
import { overrideEnvironment } from '../support/environment';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/**
 * DATABASE_CONNECT_TIMEOUT_MS bounds how long a request waits for a connection of the API's pool:
 * with every connection busy, a request answers 503 service_unavailable in the error envelope
 * once it runs out, instead of hanging for as long as the busy ones take. A pool of one, held by
 * a request waiting on a table lock the test holds, makes every connection busy on demand.
 */
describe('Waiting for a database connection (API pool)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let locker: Client;
  let environment: { restore(): void };

  beforeAll(async () => {
    environment = overrideEnvironment({
      DATABASE_POOL_SIZE: '1',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '120000',
    });
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Crowded Shop' });
    locker = new Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
  });

  afterAll(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await locker?.end();
    await api?.close();
    environment?.restore();
  });

  it('answers 503 when no connection frees up in time, and serves again once one does', async () => {
    // Warm: the key is known, so the held request gets as far as its list.
    await api.get('/v1/checkout/sessions', merchant).expect(200);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE');
    let held: Response | undefined;
    let waiting: Response | undefined;
    try {
      const holding = api.get('/v1/checkout/sessions', merchant).then((answer) => {
        held = answer;
      });
      // The only connection is taken once the list waits on the lock.
      await waitFor(
        async () => {
          const rows: Array<{ waiting: number }> = await locker
            .query(
              `SELECT count(*)::int AS waiting FROM pg_locks WHERE relation = 'checkout_sessions'::regclass
               AND NOT granted`,
            )
            .then((result) => result.rows);
          return rows[0].waiting > 0;
        },
        60_000,
        'the list waiting on the lock',
      );
      const started = Date.now();
      waiting = await api.get('/v1/events', merchant);
      const waitedMs = Date.now() - started;
      expect(held).toBeUndefined();
      expect(waitedMs).toBeLessThan(30_000);
      await locker.query('ROLLBACK');
      await holding;
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
    }
    expect(waiting!.status).toBe(503);
    expect(waiting!.headers['retry-after']).toBe('5');
    expect(waiting!.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    expect(held!.status).toBe(200);
    await api.get('/v1/events', merchant).expect(200);
  });
});
