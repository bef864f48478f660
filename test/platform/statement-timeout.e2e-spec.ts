import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { overrideEnvironment } from '../support/environment';
import { TEST_DATABASE_URL } from '../setup/test-database';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
// Short for the test, long enough for every other statement of the suite on a loaded machine.
const TIMEOUT_MS = 3000;

/**
 * The API's statements have a time limit (DATABASE_STATEMENT_TIMEOUT_MS): a list that cannot be
 * answered in time is cancelled by PostgreSQL and answers 503 in the error envelope, not a 500,
 * and the connection is free again. A table lock held by the test makes the list's statement wait
 * for exactly as long as the test wants.
 */
describe('Statement timeout of the API', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let locker: Client;
  let environment: { restore(): void };

  beforeAll(async () => {
    environment = overrideEnvironment({ DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) });
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Huge Shop' });
    locker = new Client({ connectionString: TEST_DATABASE_URL });
    await locker.connect();
  });

  afterAll(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await locker?.end();
    await api?.close();
    environment?.restore();
  });

  it('sets the limit on every connection of the API pool', async () => {
    const [row]: Array<{ statement_timeout: string }> =
      await api.dataSource.query(`SHOW statement_timeout`);
    expect(row.statement_timeout).toBe('3s');
    // A request stuck between two statements of a transaction cannot hold its locks for long.
    const [idle]: Array<{ idle_in_transaction_session_timeout: string }> =
      await api.dataSource.query(`SHOW idle_in_transaction_session_timeout`);
    expect(idle.idle_in_transaction_session_timeout).toBe('1min');
  });

  it('answers a statement that runs past it with 503 service_unavailable, and recovers', async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE');
    let response: Response | undefined;
    try {
      // The answer must come while the lock is still held: only the timeout can end the wait.
      const answered = api.get(`${SESSIONS}?include_total=true`, merchant).then((answer) => {
        response = answer;
      });
      await waitFor(async () => response !== undefined, 60_000, 'an answer while the lock is held');
      await answered;
    } finally {
      await locker.query('ROLLBACK');
    }
    expect(response!.status).toBe(503);
    expect(response!.headers['retry-after']).toBe('5');
    expect(response!.body).toEqual({
      error: {
        type: 'api_error',
        code: 'service_unavailable',
        message: expect.stringContaining('took too long in the database and was cancelled'),
        request_id: response!.headers['request-id'],
      },
    });
    // The connection went back to the pool in working order.
    await api.get(`${SESSIONS}?include_total=true`, merchant).expect(200);
  });

  it('leaves the worker without a limit (its batches have no client waiting)', async () => {
    const worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    try {
      const [row]: Array<{ statement_timeout: string }> = await worker
        .get(DataSource)
        .query(`SHOW statement_timeout`);
      expect(row.statement_timeout).toBe('0');
      const [idle]: Array<{ idle_in_transaction_session_timeout: string }> = await worker
        .get(DataSource)
        .query(`SHOW idle_in_transaction_session_timeout`);
      expect(idle.idle_in_transaction_session_timeout).toBe('0');
    } finally {
      await worker.close();
    }
  });
});
