import { Registry } from 'prom-client';
import { APP_CONFIG, AppConfig, RetentionConfig } from '@app/common';
import { RequestLogRetention } from '@app/console/request-log';
import { IdempotencyService } from '@app/idempotency';
import { MaintenanceProcessor } from '../../apps/worker/src/maintenance/maintenance.processor';
import { RequestLogRetentionProcessor } from '../../apps/worker/src/maintenance/request-log-retention.processor';
import { DataRetention } from '../../apps/worker/src/maintenance/retention/data-retention';
import { RetentionMetrics } from '../../apps/worker/src/maintenance/retention/retention-metrics';
import { TestApi, TestMerchant } from '../support/test-app';

/**
 * The worker's retention job on real rows aged by setting their timestamps: webhook attempts go
 * after 30 days, events (with their finished deliveries and attempts) after 90, except an
 * object's latest event and an event still being delivered. Small batches make every run many
 * statements, as a backlog would.
 */
describe('Data retention (events and webhook attempts)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let endpointId: string;
  let registry: Registry;
  let metrics: RetentionMetrics;
  let retention: DataRetention;
  const prefix = `ret${Date.now().toString(36)}`;

  const configWith = (settings: Partial<RetentionConfig>): AppConfig => {
    const config = api.app.get<AppConfig>(APP_CONFIG);
    return { ...config, retention: { ...config.retention, ...settings } };
  };
  const retentionWith = (settings: Partial<RetentionConfig>) =>
    new DataRetention(api.dataSource, metrics, configWith(settings));

  const addEvent = (object: string, sequence: number, ageDays: number) =>
    api.dataSource.query(
      `INSERT INTO events (id, merchant_id, livemode, type, object_type, object_id, sequence,
                           data, created_at)
       VALUES ($1, $2, false, 'checkout_session.created', 'checkout_session', $3, $4, '{}'::json,
               now() - make_interval(days => $5))`,
      [
        `evt_${prefix}_${object}_${sequence}`,
        merchant.id,
        `cs_${prefix}_${object}`,
        sequence,
        ageDays,
      ],
    );

  /** A delivery of the event to the suite's endpoint, with one attempt `attemptAgeDays` ago. */
  const addDelivery = async (eventId: string, status: string, attemptAgeDays: number) => {
    const [delivery]: Array<{ id: string }> = await api.dataSource.query(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempt_count, next_attempt_at)
       VALUES ($1, $2, $3, 1, CASE WHEN $3 = 'Pending' THEN now() + interval '1 hour' END)
       RETURNING id`,
      [eventId, endpointId, status],
    );
    await api.dataSource.query(
      `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, succeeded)
       VALUES ($1, now() - make_interval(days => $2), 500, 12, false)`,
      [delivery.id, attemptAgeDays],
    );
    return delivery.id;
  };

  const eventIds = async (): Promise<string[]> =>
    (
      await api.dataSource.query(`SELECT id FROM events WHERE merchant_id = $1 ORDER BY id`, [
        merchant.id,
      ])
    ).map((row: { id: string }) => row.id);

  const attemptsOf = async (deliveryId: string) =>
    api.count('webhook_attempts', 'delivery_id = $1', [deliveryId]);

  const deletedRows = async (table: string) => {
    const metric = await registry.getSingleMetric('payments_retention_deleted_rows_total')?.get();
    return metric?.values.find((value) => value.labels.table === table)?.value ?? 0;
  };

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Retention Shop' });
    endpointId = `we_${prefix}`;
    await api.dataSource.query(
      `INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, secret)
       VALUES ($1, $2, false, 'https://example.com/hooks', 'not-a-real-secret')`,
      [endpointId, merchant.id],
    );
    registry = new Registry();
    metrics = new RetentionMetrics(registry);
    retention = retentionWith({ webhookAttemptsDays: 30, eventsDays: 90, batchSize: 2 });
  });

  afterAll(async () => {
    await api?.dataSource.query(
      `DELETE FROM webhook_attempts WHERE delivery_id IN (
         SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)`,
      [endpointId],
    );
    await api?.dataSource.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1`, [
      endpointId,
    ]);
    await api?.dataSource.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [endpointId]);
    await api?.dataSource.query(`DELETE FROM events WHERE merchant_id = $1`, [merchant.id]);
    await api?.close();
  });

  it('deletes what outlived its retention and keeps latest, undelivered and recent rows', async () => {
    // Object a: two old events and a recent one. Object b: two old events (the second its latest).
    // Object c: an old event still being delivered, then a recent one. Object d: one recent event.
    for (const [object, sequence, age] of [
      ['a', 1, 120],
      ['a', 2, 100],
      ['a', 3, 10],
      ['b', 1, 95],
      ['b', 2, 91],
      ['c', 1, 150],
      ['c', 2, 5],
      ['d', 1, 1],
    ] as const) {
      await addEvent(object, sequence, age);
    }
    const event = (object: string, sequence: number) => `evt_${prefix}_${object}_${sequence}`;
    const oldDelivered = await addDelivery(event('a', 1), 'Succeeded', 119);
    const oldFailed = await addDelivery(event('b', 1), 'Failed', 94);
    const stillPending = await addDelivery(event('c', 1), 'Pending', 140);
    const latestOld = await addDelivery(event('b', 2), 'Succeeded', 90);
    const recentAttempt = await addDelivery(event('a', 3), 'Succeeded', 29);
    const moneyBefore = await api.count('ledger_entries');

    const run = await retention.apply();

    expect(await eventIds()).toEqual(
      [event('a', 3), event('b', 2), event('c', 1), event('c', 2), event('d', 1)].sort(),
    );
    expect(run.events).toBeGreaterThanOrEqual(3);
    // The deleted events' deliveries went with them; the others stay.
    const deliveries = await api.count('webhook_deliveries', 'endpoint_id = $1', [endpointId]);
    expect(deliveries).toBe(3);
    expect(await api.count('webhook_deliveries', 'id = ANY($1)', [[oldDelivered, oldFailed]])).toBe(
      0,
    );
    // Attempts: older than 30 days go, even of kept deliveries (the pending one's, the latest's);
    // a recent one stays.
    expect(await attemptsOf(stillPending)).toBe(0);
    expect(await attemptsOf(latestOld)).toBe(0);
    expect(await attemptsOf(recentAttempt)).toBe(1);
    expect(
      await api.count('webhook_deliveries', 'id = $1 AND status = $2', [stillPending, 'Pending']),
    ).toBe(1);
    // Nothing of the money is read, let alone deleted.
    expect(await api.count('ledger_entries')).toBe(moneyBefore);
    // Counted for /metrics.
    expect(await deletedRows('events')).toBeGreaterThanOrEqual(3);
    expect(await deletedRows('webhook_deliveries')).toBeGreaterThanOrEqual(2);
    expect(await deletedRows('webhook_attempts')).toBeGreaterThanOrEqual(4);

    // Delivered at last, the old event of c goes on the next run (c has a later event).
    await api.dataSource.query(`UPDATE webhook_deliveries SET status = 'Succeeded' WHERE id = $1`, [
      stillPending,
    ]);
    await retention.apply();
    expect(await eventIds()).toEqual(
      [event('a', 3), event('b', 2), event('c', 2), event('d', 1)].sort(),
    );
  });

  it('resumes an events pass where the last run ran out of time', async () => {
    // Kept whatever their age (each its object's only event), and the oldest: a pass that always
    // started from the oldest event would examine these and nothing else.
    for (const object of ['k1', 'k2', 'k3', 'k4']) await addEvent(object, 1, 300);
    for (let sequence = 1; sequence <= 7; sequence++) await addEvent('e', sequence, 200 - sequence);
    await addEvent('e', 8, 1);
    const ofE = async () => (await eventIds()).filter((id) => id.includes('_e_'));
    const oneBatchPerRun = retentionWith({ webhookAttemptsDays: 0, eventsDays: 90, batchSize: 2 });

    // A budget of nothing: one batch of two per run, its position saved for the next run.
    const first = await oneBatchPerRun.apply(0);
    expect(first.events).toBe(0);
    expect(await api.count('retention_cursors', `name = 'events'`)).toBe(1);
    for (let run = 0; run < 8 && (await ofE()).length > 1; run++) await oneBatchPerRun.apply(0);

    expect(await ofE()).toEqual([`evt_${prefix}_e_8`]);
    expect(await api.count('events', 'object_id LIKE $1', [`cs_${prefix}_k%`])).toBe(4);
    // A pass that reaches the cutoff leaves no position: the next one starts from the oldest.
    await retention.apply();
    expect(await api.count('retention_cursors', `name = 'events'`)).toBe(0);
  });

  it('keeps everything when a retention is 0', async () => {
    await addEvent('f', 1, 400);
    await addEvent('f', 2, 399);
    const run = await retentionWith({
      webhookAttemptsDays: 0,
      eventsDays: 0,
      batchSize: 100,
    }).apply();
    expect(run).toEqual({ webhookAttempts: 0, events: 0, webhookDeliveries: 0 });
    expect((await eventIds()).filter((id) => id.includes('_f_'))).toHaveLength(2);
  });
  describe('the request log and idempotency keys', () => {
    const addRequest = (ageDays: number, tag: string) =>
      api.dataSource.query(
        `INSERT INTO api_request_log (merchant_id, livemode, method, path, status, actor,
           api_key_id, key_hint, request_id, latency_ms, created_at)
         VALUES ($1, false, 'GET', '/v1/events', 200, 'api_key', 'key_retention', 'sk_test_…abcd',
                 $2, 1, now() - make_interval(days => $3))`,
        [merchant.id, `req_${prefix}_${tag}`, ageDays],
      );
    const requestsLeft = async () =>
      (
        await api.dataSource.query(
          `SELECT request_id FROM api_request_log WHERE merchant_id = $1 ORDER BY request_id`,
          [merchant.id],
        )
      ).map((row: { request_id: string }) => row.request_id.replace(`req_${prefix}_`, ''));
    const requestLogJob = (settings: Partial<RetentionConfig>) =>
      new RequestLogRetentionProcessor(
        new RequestLogRetention(api.dataSource),
        metrics,
        configWith(settings),
      );

    afterEach(() =>
      api.dataSource.query(`DELETE FROM api_request_log WHERE merchant_id = $1`, [merchant.id]),
    );

    it('deletes request log rows past RETENTION_REQUEST_LOG_DAYS, a bounded run at a time', async () => {
      for (const [age, tag] of [
        [12, 'old1'],
        [11, 'old2'],
        [8, 'old3'],
        [6, 'recent'],
      ] as const) {
        await addRequest(age, tag);
      }
      const counted = await deletedRows('api_request_log');
      const job = requestLogJob({ requestLogDays: 7, batchSize: 2 });

      // A budget of nothing: one batch of two per run, the rest left to the next run (the
      // database is shared with other suites: an old row of theirs may be in a batch too).
      expect(await job.purge(0)).toBe(2);
      expect(await requestsLeft()).not.toEqual(['recent']);
      for (let run = 0; run < 100 && (await requestsLeft()).length > 1; run++) await job.purge(0);
      expect(await requestsLeft()).toEqual(['recent']);
      expect((await deletedRows('api_request_log')) - counted).toBeGreaterThanOrEqual(3);
    });

    it('keeps the request log when RETENTION_REQUEST_LOG_DAYS is 0, and 30 days by default', async () => {
      await addRequest(400, 'ancient');
      await addRequest(29, 'month');
      expect(await requestLogJob({ requestLogDays: 0 }).purge()).toBe(0);
      expect(await requestsLeft()).toEqual(['ancient', 'month']);
      // The default configuration: 30 days, as the console says.
      expect(api.app.get<AppConfig>(APP_CONFIG).retention.requestLogDays).toBe(30);
      expect(await requestLogJob({}).purge()).toBeGreaterThanOrEqual(1);
      expect(await requestsLeft()).toEqual(['month']);
    });

    it('deletes idempotency keys past their 24 hours in bounded batches, never a live one', async () => {
      const addKey = (key: string, expiresInHours: number) =>
        api.dataSource.query(
          `INSERT INTO idempotency_keys (merchant_id, idempotency_key, endpoint, request_hash,
             response_status, response_body, expires_at)
           VALUES ($1, $2, 'POST /v1/checkout/sessions', 'hash', 201, '{}'::jsonb,
                   now() + make_interval(hours => $3))`,
          [merchant.id, `${prefix}-${key}`, expiresInHours],
        );
      for (const key of ['expired1', 'expired2', 'expired3']) await addKey(key, -1);
      await addKey('live', 23);
      const keysLeft = async () =>
        (
          await api.dataSource.query(
            `SELECT idempotency_key FROM idempotency_keys WHERE merchant_id = $1 ORDER BY 1`,
            [merchant.id],
          )
        ).map((row: { idempotency_key: string }) => row.idempotency_key.replace(`${prefix}-`, ''));
      const counted = await deletedRows('idempotency_keys');
      // Only the purge's collaborators: the other maintenance jobs are not run here.
      const job = new MaintenanceProcessor(
        undefined as never,
        api.app.get(IdempotencyService),
        undefined as never,
        undefined as never,
        metrics,
        configWith({ batchSize: 2 }),
      );

      // A run stops after its budget: 0 ms is one batch (other suites' expired keys may be in it).
      const first = await job.purgeExpiredKeys(0);
      expect(first).toBeLessThanOrEqual(2);
      for (let run = 0; run < 100 && (await keysLeft()).length > 1; run++) {
        await job.purgeExpiredKeys(0);
      }
      expect(await keysLeft()).toEqual(['live']);
      expect((await deletedRows('idempotency_keys')) - counted).toBeGreaterThanOrEqual(3);
      await api.dataSource.query(`DELETE FROM idempotency_keys WHERE merchant_id = $1`, [
        merchant.id,
      ]);
    });
  });
});
