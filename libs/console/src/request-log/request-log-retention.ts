import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * How long the console shows a request by default (issue 25: the last 30 days); the worker takes
 * RETENTION_REQUEST_LOG_DAYS (docs/operations.md, "Data retention").
 */
export const REQUEST_LOG_RETENTION_DAYS = 30;
/** The worker's hourly job on the maintenance queue. */
export const PURGE_REQUEST_LOG_JOB = 'purge-request-log';
/** Rows per DELETE: each statement is a short transaction that holds few locks. */
export const REQUEST_LOG_PURGE_BATCH = 10_000;

// Along the created_at index, oldest first, each row by its ctid (a TID scan: no second index
// lookup; rows of the log are never updated, so a ctid read here is the row's). Counted in a CTE:
// TypeORM returns [rows, count] for a bare DELETE ... RETURNING.
const DELETE_EXPIRED_BATCH = `
  WITH deleted AS (
    DELETE FROM api_request_log WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM api_request_log
       WHERE created_at < now() - make_interval(days => $1)
       LIMIT $2))
    RETURNING 1)
  SELECT count(*)::int AS deleted FROM deleted`;

/** Deletes request log rows older than the retention, in batches (the worker's hourly job). */
@Injectable()
export class RequestLogRetention {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Returns how many rows went: those older than `days` (0 keeps them all), until none is left or
   * `deadline` (a Date.now() value) has passed; the rest waits for the next run. Safe on many
   * workers at once: each batch deletes what it finds.
   */
  async purgeExpired(
    batchSize = REQUEST_LOG_PURGE_BATCH,
    days = REQUEST_LOG_RETENTION_DAYS,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<number> {
    if (days <= 0) return 0;
    let total = 0;
    for (;;) {
      const [{ deleted }]: Array<{ deleted: number }> = await this.dataSource.query(
        DELETE_EXPIRED_BATCH,
        [days, batchSize],
      );
      total += deleted;
      if (deleted < batchSize || Date.now() >= deadline) return total;
    }
  }
}
