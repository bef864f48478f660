import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How long the console shows a request (docs/console.md, Request log). */
export const REQUEST_LOG_RETENTION_DAYS = 30;
/** The worker's hourly job on the maintenance queue. */
export const PURGE_REQUEST_LOG_JOB = 'purge-request-log';
/** Rows per DELETE: each statement is a short transaction that holds few locks. */
export const REQUEST_LOG_PURGE_BATCH = 10_000;

// The oldest rows of each merchant, read backwards along the list's own index (merchant_id,
// created_at DESC, id DESC), so that the write path maintains no index for the purge alone;
// merchants without old rows cost one index probe each. Counted in a CTE: TypeORM returns
// [rows, count] for a bare DELETE ... RETURNING.
const DELETE_EXPIRED_BATCH = `
  WITH deleted AS (
    DELETE FROM api_request_log WHERE id IN (
      SELECT expired.id FROM merchants m
        CROSS JOIN LATERAL (
          SELECT l.id FROM api_request_log l
           WHERE l.merchant_id = m.id AND l.created_at < now() - make_interval(days => $1)
           ORDER BY l.created_at, l.id
           LIMIT $2) expired
       LIMIT $2)
    RETURNING 1)
  SELECT count(*)::int AS deleted FROM deleted`;

/** Deletes request log rows older than the retention, in batches (the worker's hourly job). */
@Injectable()
export class RequestLogRetention {
  constructor(private readonly dataSource: DataSource) {}

  /** Returns how many rows went. Safe on many workers at once: each batch deletes what it finds. */
  async purgeExpired(batchSize = REQUEST_LOG_PURGE_BATCH): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ deleted }]: Array<{ deleted: number }> = await this.dataSource.query(
        DELETE_EXPIRED_BATCH,
        [REQUEST_LOG_RETENTION_DAYS, batchSize],
      );
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
