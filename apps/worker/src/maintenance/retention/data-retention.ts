import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, RetentionConfig } from '@app/common';
import { RetentionMetrics } from './retention-metrics';
import {
  CLEAR_CURSOR,
  DELETE_OLD_EVENTS_BATCH,
  DELETE_OLD_WEBHOOK_ATTEMPTS,
  READ_CURSOR,
  SAVE_CURSOR,
} from './retention-sql';

/** The worker's job on the maintenance queue, scheduled by MaintenanceScheduler. */
export const APPLY_RETENTION_JOB = 'apply-data-retention';

/**
 * How long one run may go on. Below the worker's shutdown bound (SHUTDOWN_TIMEOUT_MS, 25 s by
 * default), so a SIGTERM never waits past it for this job; a backlog is worked off over runs.
 */
export const RETENTION_RUN_BUDGET_MS = 15_000;

const EVENTS_CURSOR = 'events';
const FROM_THE_OLDEST = { createdAt: '-infinity', id: '' };

export interface RetentionRun {
  webhookAttempts: number;
  events: number;
  webhookDeliveries: number;
}

interface EventsBatch {
  examined: number;
  last_created_at: string | null;
  last_id: string | null;
  events: number;
  deliveries: number;
  attempts: number;
}

/**
 * Deletes what has outlived its retention (docs/operations.md, "Data retention"): webhook
 * attempts after RETENTION_WEBHOOK_ATTEMPTS_DAYS, events with their finished deliveries after
 * RETENTION_EVENTS_DAYS. Nothing here moves or proves money: the ledger, payouts, sessions and
 * their transfers are never read, let alone deleted. Safe on many workers at once: every batch
 * deletes what it finds, and two passes that overlap only examine the same rows twice.
 */
@Injectable()
export class DataRetention {
  private readonly logger = new Logger(DataRetention.name);
  private readonly settings: RetentionConfig;

  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: RetentionMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = config.retention;
  }

  /** One run, within `budgetMs`; what is left waits for the next run. */
  async apply(budgetMs = RETENTION_RUN_BUDGET_MS): Promise<RetentionRun> {
    const deadline = Date.now() + budgetMs;
    const run: RetentionRun = { webhookAttempts: 0, events: 0, webhookDeliveries: 0 };
    const { webhookAttemptsDays, eventsDays } = this.settings;
    if (webhookAttemptsDays > 0) {
      run.webhookAttempts += await this.purgeWebhookAttempts(
        await this.cutoff(webhookAttemptsDays),
        deadline,
      );
    }
    if (eventsDays > 0) {
      const gone = await this.purgeEvents(await this.cutoff(eventsDays), deadline);
      run.events += gone.events;
      run.webhookDeliveries += gone.deliveries;
      run.webhookAttempts += gone.attempts;
    }
    if (run.webhookAttempts || run.events || run.webhookDeliveries) {
      this.logger.log(run, 'Data past its retention deleted');
    }
    return run;
  }

  /** The moment `days` before now, by PostgreSQL's clock (the one created_at was set by). */
  private async cutoff(days: number): Promise<string> {
    const [row]: Array<{ cutoff: string }> = await this.dataSource.query(
      `SELECT (now() - make_interval(days => $1))::text AS cutoff`,
      [days],
    );
    return row.cutoff;
  }

  private async purgeWebhookAttempts(cutoff: string, deadline: number): Promise<number> {
    const batch = this.settings.batchSize;
    let total = 0;
    for (;;) {
      const [{ deleted }]: Array<{ deleted: number }> = await this.dataSource.query(
        DELETE_OLD_WEBHOOK_ATTEMPTS,
        [cutoff, batch],
      );
      total += deleted;
      this.metrics.deleted('webhook_attempts', deleted);
      if (deleted < batch || Date.now() >= deadline) return total;
    }
  }

  /**
   * Walks the events older than the cutoff, oldest first, one batch per statement, from where
   * the last pass stopped. A pass that reaches the cutoff starts the next from the oldest event
   * again: the events it had to keep may be deletable by then (their object moved on).
   */
  private async purgeEvents(
    cutoff: string,
    deadline: number,
  ): Promise<{ events: number; deliveries: number; attempts: number }> {
    const batch = this.settings.batchSize;
    const gone = { events: 0, deliveries: 0, attempts: 0 };
    const [saved]: Array<{ created_at: string; id: string }> = await this.dataSource.query(
      READ_CURSOR,
      [EVENTS_CURSOR],
    );
    let position = saved ? { createdAt: saved.created_at, id: saved.id } : FROM_THE_OLDEST;
    for (;;) {
      const [result]: EventsBatch[] = await this.dataSource.query(DELETE_OLD_EVENTS_BATCH, [
        cutoff,
        position.createdAt,
        position.id,
        batch,
      ]);
      gone.events += result.events;
      gone.deliveries += result.deliveries;
      gone.attempts += result.attempts;
      this.metrics.deleted('events', result.events);
      this.metrics.deleted('webhook_deliveries', result.deliveries);
      this.metrics.deleted('webhook_attempts', result.attempts);
      if (result.examined < batch || !result.last_created_at || !result.last_id) {
        await this.dataSource.query(CLEAR_CURSOR, [EVENTS_CURSOR]);
        return gone;
      }
      position = { createdAt: result.last_created_at, id: result.last_id };
      if (Date.now() >= deadline) {
        await this.dataSource.query(SAVE_CURSOR, [EVENTS_CURSOR, position.createdAt, position.id]);
        return gone;
      }
    }
  }
}
