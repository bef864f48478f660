/**
 * What bench:data-scale times at each stage: the writes of the event outbox and the webhook
 * dispatcher, the lists (bench:lists' scenarios, imported, plus an event's deliveries with their
 * attempts) and the retention job's delete batches. Every statement is the application's own:
 * its classes run over one pg connection (the app's CallbackQueryClient), no HTTP.
 */
import { randomInt } from 'node:crypto';
import type { QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../libs/common/src';
import { queryList } from '../../libs/common/src/pagination/list-query';
import { CallbackQueryClient } from '../../libs/database/src/callback-query-client';
import { EVENT_TYPES } from '../../libs/events/src/event-types';
import { DeliveryQueueRepository } from '../../libs/events/src/delivery/delivery-queue.repository';
import { EventsRepository } from '../../libs/events/src/events/events.repository';
import { EventWriter } from '../../libs/events/src/outbox/event-writer';
import {
  DELETE_OLD_EVENTS_BATCH,
  DELETE_OLD_WEBHOOK_ATTEMPTS,
} from '../../apps/worker/src/maintenance/retention/retention-sql';
import { latency, timeCalls } from '../kit/timing';
import { scenarios } from '../lists/scenarios';
import { MERCHANT_ID } from './seed';

/** What one DELETE_OLD_EVENTS_BATCH statement answers. */
interface EventsBatch {
  events: number;
  deliveries: number;
  attempts: number;
  last_created_at: string | null;
  last_id: string;
}

interface ExplainedPlan {
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
  'Execution Time': number;
}

interface Sizes {
  events: number;
  deliveries: number;
  attempts: number;
  sessions: number;
}

const summarize = (name: string, kind: 'write' | 'list' | 'retention', timings: number[]) => ({
  name,
  kind,
  samples: timings.length,
  ...latency(timings),
});
/** One write's, list's or retention batch's figures; a retention batch's rows deleted on average. */
type Timing = ReturnType<typeof summarize> & { rows_per_batch?: number };

export class Measurements {
  private readonly db: CallbackQueryClient;
  /** TypeORM's DataSource and EntityManager as the app's classes use them: query() alone. */
  private readonly runner: DataSource & EntityManager;

  /** Calls discarded, then timed, per write and list. */
  private readonly counts: { warmup: number; samples: number };

  constructor(url: string, warmup: number, samples: number) {
    this.counts = { warmup, samples };
    this.db = new CallbackQueryClient({ connectionString: url });
    this.runner = {
      query: (sql: string, params?: unknown[]) => this.select(sql, params),
      // A transaction's runner, for queryPrepared: named statements on this one connection.
      queryRunner: { isReleased: false, connect: async () => this.db },
    } as unknown as DataSource & EntityManager;
  }

  /** The rows of one statement (the client's promise-mode query is typed `never`). */
  private async select<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    const result: QueryResult = await this.db.query(sql, params);
    return result.rows as T[];
  }

  connect = () => this.db.connect();
  end = () => this.db.end();

  async sizes(): Promise<Sizes> {
    const rows = await this.select<Sizes>(
      `SELECT (SELECT count(*) FROM events)::int AS events,
              (SELECT count(*) FROM webhook_deliveries)::int AS deliveries,
              (SELECT count(*) FROM webhook_attempts)::int AS attempts,
              (SELECT count(*) FROM checkout_sessions)::int AS sessions`,
    );
    return rows[0];
  }

  async databaseBytes(): Promise<number> {
    const rows = await this.select<{ bytes: string }>(
      `SELECT pg_database_size(current_database()) AS bytes`,
    );
    return Number(rows[0].bytes);
  }

  /**
   * About `count` values of `column`, from pages picked at random (TABLESAMPLE SYSTEM reads only
   * those): rows spread over the whole table, cold ones included, for a fraction of a scan.
   */
  private async sample(table: string, column: string, count: number): Promise<string[]> {
    const rows = await this.select<{ value: string }>(
      `SELECT ${column}::text AS value FROM ${table}
         TABLESAMPLE SYSTEM ((SELECT least(100, 100 * $1 / greatest(reltuples, 1))
                                FROM pg_class WHERE oid = '${table}'::regclass))
        LIMIT $1`,
      [count],
    );
    if (!rows.length) throw new Error(`Nothing to sample in ${table}`);
    return rows.map((row) => row.value);
  }

  /** The outbox's and the dispatcher's writes, on objects and deliveries picked at random. */
  async writes(): Promise<Timing[]> {
    const objects = await this.sample('events', 'object_id', 2000);
    const deliveries = await this.sample('webhook_deliveries', 'id', 2000);
    const any = (values: string[]) => values[randomInt(values.length)];
    const writer = new EventWriter({ livemode: false } as AppConfig);
    const queue = new DeliveryQueueRepository(this.runner);
    const event = await timeCalls(this.counts, (i) =>
      writer.record(this.runner, {
        type: EVENT_TYPES[i % EVENT_TYPES.length],
        merchantId: MERCHANT_ID,
        subMerchantId: null,
        subMerchantCode: null,
        objectType: 'checkout.session',
        // Objects of its own (the seeded ones' sequences are the seed's), each written several
        // times: the next sequence is read from the (object_id, sequence) index among 10 M rows.
        objectId: `${any(objects)}_written`,
        previousStatus: 'Pending',
        data: { object: { id: 'cs_bench', status: 'paid', amount: '10.00' } },
      }),
    );
    let deliveryId = '';
    const attempt = await timeCalls(
      {
        ...this.counts,
        before: async () => {
          deliveryId = any(deliveries);
          // What a claim leaves on the delivery: a lease the attempt's statement checks.
          await this.db.query(
            `UPDATE webhook_deliveries SET status = 'Pending', lease_token = 'bench' WHERE id = $1`,
            [deliveryId],
          );
        },
      },
      () =>
        queue.recordAttempt(
          { delivery_id: deliveryId, lease_token: 'bench' } as never,
          {
            attemptedAt: new Date(),
            statusCode: 200,
            latencyMs: 42,
            responseExcerpt: 'ok',
            error: null,
            succeeded: true,
          },
          { status: 'Succeeded' },
        ),
    );
    return [
      summarize('write: an event and its delivery (EventWriter.record)', 'write', event),
      summarize(
        'write: a webhook attempt (DeliveryQueueRepository.recordAttempt)',
        'write',
        attempt,
      ),
    ];
  }

  /** bench:lists' list scenarios (sessions, payouts, events) and an event's delivery log. */
  async lists(): Promise<Timing[]> {
    const events = await this.sample('events', 'id', 2000);
    const results: Timing[] = [];
    for (const scenario of await scenarios(this.db, MERCHANT_ID)) {
      const direct = scenario.direct;
      if (!direct) continue;
      // The exact count on request reads every row (seconds at 10 M): shown, not a target, so
      // a few samples (400 of them held the first full-size run for over ten minutes).
      const exact = direct.page.includeTotal;
      const timings = await timeCalls(exact ? { warmup: 2, samples: 10 } : this.counts, () =>
        queryList(this.runner, direct.spec, direct.page),
      );
      results.push(summarize(scenario.name, 'list', timings));
    }
    const repository = new EventsRepository(this.runner);
    const log = await timeCalls(this.counts, () =>
      repository.deliveries(events[randomInt(events.length)]),
    );
    results.push(
      summarize("events: an event's deliveries and attempts (random event)", 'list', log),
    );
    return results;
  }

  /**
   * Each list's call once more with every SELECT explained (EXPLAIN ANALYZE, BUFFERS): the pages a
   * call touches do not depend on how busy the machine is, so they say whether a list stays flat
   * where a shared machine's timings cannot. Per list: the 8 kB pages its statements touched
   * (shared buffers hit plus read: what grows if a plan scans) and PostgreSQL's execution time.
   */
  async plans() {
    const figures: Array<{ name: string; buffers: number; execution_ms: number }> = [];
    for (const scenario of await scenarios(this.db, MERCHANT_ID)) {
      const direct = scenario.direct;
      if (!direct) continue;
      const figure = { name: scenario.name, buffers: 0, execution_ms: 0 };
      const explaining = {
        query: async (sql: string, params?: unknown[]) => {
          if (/^\s*(SELECT|WITH)\b/i.test(sql) && !/\b(INSERT|UPDATE|DELETE)\b/i.test(sql)) {
            const [row] = await this.select<{ 'QUERY PLAN': ExplainedPlan[] }>(
              `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
              params,
            );
            const [plan] = row['QUERY PLAN'];
            figure.buffers += plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
            figure.execution_ms += plan['Execution Time'];
          }
          return this.select(sql, params);
        },
      };
      await queryList(explaining, direct.spec, direct.page);
      figures.push({ ...figure, execution_ms: Math.round(figure.execution_ms * 100) / 100 });
    }
    return figures;
  }

  /**
   * The retention job's two statements, committed for real, `batches` times each: attempts past
   * 30 days, then events past 90 days walked oldest first (as DataRetention does).
   */
  async retention(batchSize: number, batches: number): Promise<Timing[]> {
    const cutoff = async (days: number) =>
      (
        await this.select<{ c: string }>(`SELECT (now() - make_interval(days => $1))::text AS c`, [
          days,
        ])
      )[0].c;
    const attemptsCutoff = await cutoff(30);
    let attemptsDeleted = 0;
    const attempts = await timeCalls({ warmup: 0, samples: batches }, async () => {
      const rows = await this.select<{ deleted: number }>(DELETE_OLD_WEBHOOK_ATTEMPTS, [
        attemptsCutoff,
        batchSize,
      ]);
      attemptsDeleted += rows[0].deleted;
    });
    const eventsCutoff = await cutoff(90);
    let position = { createdAt: '-infinity', id: '' };
    let eventsDeleted = 0;
    const eventsBatches = await timeCalls({ warmup: 0, samples: batches }, async () => {
      const rows = await this.select<EventsBatch>(DELETE_OLD_EVENTS_BATCH, [
        eventsCutoff,
        position.createdAt,
        position.id,
        batchSize,
      ]);
      const [result] = rows;
      eventsDeleted += result.events + result.deliveries + result.attempts;
      if (result.last_created_at)
        position = { createdAt: result.last_created_at, id: result.last_id };
    });
    return [
      {
        ...summarize(
          `retention: webhook attempts past 30 days, ${batchSize} a batch`,
          'retention',
          attempts,
        ),
        rows_per_batch: Math.round(attemptsDeleted / batches),
      },
      {
        ...summarize(
          `retention: events past 90 days (with deliveries, attempts), ${batchSize} examined a batch`,
          'retention',
          eventsBatches,
        ),
        rows_per_batch: Math.round(eventsDeleted / batches),
      },
    ];
  }
}
