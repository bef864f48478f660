// The status changes of `npm run bench:webhooks`, in a process of its own (driven by
// children.ts): the service's EventWriter.record in a transaction of its own per event, at
// a fixed offered rate, on the benchmark's database through the service's own modules.
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppConfigModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { EventOutboxModule, EventWriter } from '@app/events';
import { sleep, timestamp } from '../kit/clock';
import { serve } from './ipc';
import { payoutCreatedEvent } from './payout-event';

/** Events for these merchants, in turns, at `rate` a second. */
export interface Bucket {
  rate: number;
  merchantIds: string[];
}

export interface GeneratorRun {
  /** Epoch ms: the phase's time zero, shared with the orchestrator. */
  startAt: number;
  seconds: number;
  buckets: Bucket[];
  maxInFlight: number;
}

export interface GeneratorStats {
  /** Transactions committed, per bucket. */
  committed: number[];
  failed: number;
  errors: string[];
  /** Most events due but not yet started at one moment (0: the offered rate was kept). */
  maxBehind: number;
  /** When the last transaction ended. */
  endedAt: number;
}

export type GeneratorApi = {
  run: (request: GeneratorRun) => Promise<GeneratorStats>;
  /** Closes its pool before the database is inspected or dropped. */
  close: () => Promise<void>;
};

@Module({ imports: [AppConfigModule, DatabaseModule, EventOutboxModule] })
class EventGeneratorModule {}

// The bucket is topped up this often; at 500 events/s that is a couple of events per tick.
const TICK_MS = 2;
const ERRORS_KEPT = 5;

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(EventGeneratorModule, { logger: false });
  await app.init();
  const dataSource = app.get(DataSource);
  const writer = app.get(EventWriter);
  let ordinal = 0;

  /** One status change: one transaction, one event (and its deliveries, in the same statement). */
  const change = (merchantId: string) =>
    dataSource.transaction((manager) =>
      writer.record(manager, payoutCreatedEvent(merchantId, ++ordinal)),
    );

  const handlers: GeneratorApi = {
    run: (request) => offer(request, change),
    close: () => app.close(),
  };
  serve(handlers);
}

/**
 * A token bucket per group of merchants: by `t` seconds after the start, floor(t * rate) events
 * are due; each is started as soon as it is due unless `maxInFlight` transactions are open, in
 * which case it waits (and `maxBehind` says how far the generator fell behind its rate). The
 * merchants of a bucket take turns.
 */
async function offer(
  request: GeneratorRun,
  change: (merchantId: string) => Promise<unknown>,
): Promise<GeneratorStats> {
  const { startAt, seconds, buckets, maxInFlight } = request;
  const endAt = startAt + seconds * 1000;
  const finalDue = buckets.map((bucket) => Math.floor(seconds * bucket.rate));
  const issued = buckets.map(() => 0);
  const committed = buckets.map(() => 0);
  const stats: GeneratorStats = { committed, failed: 0, errors: [], maxBehind: 0, endedAt: 0 };
  let inFlight = 0;

  await sleep(Math.max(startAt - timestamp(), 0));
  return new Promise((resolve) => {
    const pump = () => {
      const now = Math.min(timestamp(), endAt);
      let behind = 0;
      buckets.forEach((bucket, index) => {
        const due = Math.floor(((now - startAt) / 1000) * bucket.rate);
        while (issued[index] < due && inFlight < maxInFlight) {
          const merchantId = bucket.merchantIds[issued[index] % bucket.merchantIds.length];
          issued[index]++;
          inFlight++;
          change(merchantId)
            .then(
              () => committed[index]++,
              (error: unknown) => {
                stats.failed++;
                if (stats.errors.length < ERRORS_KEPT) stats.errors.push(String(error));
              },
            )
            .finally(() => {
              inFlight--;
              pump();
            });
        }
        behind += due - issued[index];
      });
      stats.maxBehind = Math.max(stats.maxBehind, behind);
      const allIssued = issued.every((count, index) => count === finalDue[index]);
      if (now >= endAt && allIssued && inFlight === 0) {
        clearInterval(timer);
        stats.endedAt = timestamp();
        resolve(stats);
      }
    };
    const timer = setInterval(pump, TICK_MS);
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
