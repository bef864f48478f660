import { getQueueToken } from '@nestjs/bull';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Queue } from 'bull';
import { Client } from 'pg';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, MAINTENANCE_JOBS, QUEUES } from '@app/common';
import { PURGE_REQUEST_LOG_JOB } from '@app/console/request-log';
import { METRICS_REGISTRY } from '@app/metrics';
import { MaintenanceScheduler } from '../../apps/worker/src/maintenance/maintenance.scheduler';
import { APPLY_RETENTION_JOB } from '../../apps/worker/src/maintenance/retention/data-retention';
import { WorkerModule } from '../../apps/worker/src/worker.module';

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Worker (real Redis and Bull)', () => {
  let worker: INestApplicationContext;
  let dataSource: DataSource;
  let queue: Queue;

  beforeAll(async () => {
    // Start from an empty pool: with 500 or more left by earlier suites the worker rightly does
    // nothing, and there would be no refill to observe.
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query('DELETE FROM pay_addresses WHERE claimed_at IS NULL');
    await client.end();
    worker = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    await worker.init();
    dataSource = worker.get(DataSource);
    queue = worker.get<Queue>(getQueueToken(QUEUES.maintenance));
  });

  afterAll(() => worker.close());

  const poolTarget = () => worker.get<AppConfig>(APP_CONFIG).payAddressPool.targetSize;
  const unclaimed = async (family: string) => {
    const rows: Array<{ count: string }> = await dataSource.query(
      `SELECT count(*) AS count FROM pay_addresses WHERE chain_family = $1 AND claimed_at IS NULL`,
      [family],
    );
    return Number(rows[0].count);
  };

  it('schedules its repeatable jobs once', async () => {
    const repeatable = await queue.getRepeatableJobs();
    expect(repeatable.map((job) => job.name).sort()).toEqual([
      APPLY_RETENTION_JOB,
      MAINTENANCE_JOBS.expireRefundDestinations,
      MAINTENANCE_JOBS.expireSessions,
      MAINTENANCE_JOBS.purgeIdempotencyKeys,
      PURGE_REQUEST_LOG_JOB,
      MAINTENANCE_JOBS.refillPayAddresses,
    ]);
  });

  it('removes schedules it no longer runs on its next pass', async () => {
    // Left by an older version or configuration: every worker would run it forever.
    await queue.add(MAINTENANCE_JOBS.expireSessions, {}, { repeat: { every: 3_000 } });
    await queue.add('retired-job', {}, { repeat: { every: 60_000 } });

    const wanted = [
      [APPLY_RETENTION_JOB, 600_000],
      [MAINTENANCE_JOBS.expireRefundDestinations, 60_000],
      [MAINTENANCE_JOBS.expireSessions, 5_000],
      [MAINTENANCE_JOBS.purgeIdempotencyKeys, 3_600_000],
      [PURGE_REQUEST_LOG_JOB, 3_600_000],
      [MAINTENANCE_JOBS.refillPayAddresses, 10_000],
    ];
    const schedules = async () =>
      (await queue.getRepeatableJobs()).map((job) => [job.name, job.every]).sort();
    // A stale job running at the moment of its removal schedules its next run again, as Bull does
    // for every repeatable job: the next pass (every 15 s) removes it.
    await waitFor(async () => {
      await worker.get(MaintenanceScheduler).schedule();
      return JSON.stringify(await schedules()) === JSON.stringify(wanted);
    }, 30_000);
    expect(await schedules()).toEqual(wanted);
  });

  it('schedules its jobs again after Redis lost them (a flush, a restart without persistence)', async () => {
    await queue.client.flushdb();
    // Not checked empty here: a repeat job the worker is running at the flush adds its schedule
    // back as it finishes (Bull's next repeat), a race a loaded CI run lost once. Every schedule
    // must come back, whichever was re-added first.
    await waitFor(async () => (await queue.getRepeatableJobs()).length === 6, 60_000);
    expect((await queue.getRepeatableJobs()).map((job) => job.name).sort()).toEqual([
      APPLY_RETENTION_JOB,
      MAINTENANCE_JOBS.expireRefundDestinations,
      MAINTENANCE_JOBS.expireSessions,
      MAINTENANCE_JOBS.purgeIdempotencyKeys,
      PURGE_REQUEST_LOG_JOB,
      MAINTENANCE_JOBS.refillPayAddresses,
    ]);
  });

  it('fills an empty pay-address pool of every chain family on start', async () => {
    await waitFor(
      async () =>
        (await unclaimed('EVM')) >= poolTarget() && (await unclaimed('TRON')) >= poolTarget(),
      60_000,
    );
  });

  it('purges expired idempotency keys and keeps live ones', async () => {
    await dataSource.query(
      `INSERT INTO merchants (id, kind, name) VALUES ('mer_worker_test', 'direct', 'W') ON CONFLICT DO NOTHING`,
    );
    await dataSource.query(
      `INSERT INTO idempotency_keys (merchant_id, idempotency_key, endpoint, request_hash, response_status, response_body, expires_at)
       VALUES ('mer_worker_test', 'old', 'POST /x', 'h', 201, '{}', now() - interval '1 minute'),
              ('mer_worker_test', 'live', 'POST /x', 'h', 201, '{}', now() + interval '1 hour')`,
    );
    // The job may wait behind the pool's refill on a slow machine: wait for it, not for Jest's
    // default timeout.
    const job = await queue.add(MAINTENANCE_JOBS.purgeIdempotencyKeys, {});
    await job.finished();
    const keys: Array<{ idempotency_key: string }> = await dataSource.query(
      `SELECT idempotency_key FROM idempotency_keys WHERE merchant_id = 'mer_worker_test'`,
    );
    expect(keys.map((row) => row.idempotency_key)).toEqual(['live']);
  });

  it('applies data retention as a maintenance job, and counts what it deleted', async () => {
    await dataSource.query(
      `INSERT INTO merchants (id, kind, name) VALUES ('mer_worker_test', 'direct', 'W') ON CONFLICT DO NOTHING`,
    );
    // Two events of one object, the first past the 90 days: it goes, the latest stays.
    await dataSource.query(
      `INSERT INTO events (id, merchant_id, livemode, type, object_type, object_id, sequence, data,
                           created_at)
       VALUES ('evt_worker_old', 'mer_worker_test', false, 'checkout_session.created',
               'checkout_session', 'cs_worker_retention', 1, '{}', now() - interval '100 days'),
              ('evt_worker_new', 'mer_worker_test', false, 'checkout_session.expired',
               'checkout_session', 'cs_worker_retention', 2, '{}', now() - interval '95 days')
       ON CONFLICT DO NOTHING`,
    );
    const job = await queue.add(APPLY_RETENTION_JOB, {});
    await job.finished();
    const events: Array<{ id: string }> = await dataSource.query(
      `SELECT id FROM events WHERE object_id = 'cs_worker_retention'`,
    );
    expect(events.map((row) => row.id)).toEqual(['evt_worker_new']);
    const metrics = await worker.get<Registry>(METRICS_REGISTRY).metrics();
    expect(metrics).toMatch(/payments_retention_deleted_rows_total\{table="events"\} [1-9]/);
  });
});
