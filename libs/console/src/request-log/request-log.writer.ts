import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RequestLogEntry } from './request-log-entry';

/** A batch is written at least this often... */
export const FLUSH_INTERVAL_MS = 1_000;
/** ...and as soon as this many entries wait. */
export const BATCH_SIZE = 500;
/**
 * At most this many entries wait in memory: while the database is unreachable, newer entries are
 * dropped rather than let an outage grow the process without bound (20 s at 500 requests a second).
 */
export const MAX_BUFFERED = 10_000;

// One statement whatever the batch size: eleven array parameters, unnested into rows. The key
// hint is read from api_keys here, by primary key, once per batch, rather than per request.
const INSERT_BATCH = `
  INSERT INTO api_request_log
    (merchant_id, livemode, method, path, status, actor, api_key_id, key_hint, console_user_id,
     request_id, latency_ms, created_at)
  SELECT e.merchant_id, e.livemode, e.method, e.path, e.status, e.actor, e.api_key_id, k.key_hint,
         e.console_user_id, e.request_id, e.latency_ms, e.created_at
    FROM unnest($1::text[], $2::boolean[], $3::text[], $4::text[], $5::int[], $6::text[],
                $7::text[], $8::text[], $9::text[], $10::int[], $11::timestamptz[])
         AS e(merchant_id, livemode, method, path, status, actor, api_key_id, console_user_id,
              request_id, latency_ms, created_at)
    LEFT JOIN api_keys k ON k.id = e.api_key_id`;

/**
 * Writes the request log off the requests' path: `record` only appends to memory; a timer and
 * the batch size trigger one multi-row INSERT at a time.
 *
 * A request log is not money: a batch the database refuses (an outage, a statement timeout) is
 * logged and dropped, never retried and never allowed to fail or slow a request. Entries buffered
 * at shutdown are written by onApplicationShutdown, after main.ts has drained HTTP.
 */
@Injectable()
export class RequestLogWriter implements OnApplicationShutdown {
  private readonly logger = new Logger(RequestLogWriter.name);
  private buffer: RequestLogEntry[] = [];
  private writing: Promise<boolean> | null = null;
  private droppedWhileFull = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    // The log never keeps a process alive.
    this.timer.unref();
  }

  /** Queues one entry; synchronous and constant time. */
  record(entry: RequestLogEntry): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.droppedWhileFull += 1;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= BATCH_SIZE) void this.flush();
  }

  /** Entries recorded and not written yet (for tests and the shutdown). */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Starts writing what is buffered unless a write is under way (that one goes on with the next
   * full batch when it ends); resolves when the current write ends, true unless a batch failed.
   */
  flush(): Promise<boolean> {
    this.reportDropped();
    if (!this.writing && this.buffer.length > 0) {
      this.writing = this.writeBatches().finally(() => {
        this.writing = null;
      });
    }
    return this.writing ?? Promise.resolve(true);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    // Every batch, the last partial one included; each pass takes at least one batch out.
    while (this.writing || this.buffer.length > 0) {
      if (await this.flush()) continue;
      // The database refused a batch: the others would only wait for the same error.
      this.logger.error({ dropped: this.buffer.length }, 'Request log entries dropped at shutdown');
      this.buffer = [];
      return;
    }
  }

  /** The first batch, then further ones while full batches wait; stops at the first failure. */
  private async writeBatches(): Promise<boolean> {
    do {
      const batch = this.buffer.splice(0, BATCH_SIZE);
      if (!(await this.write(batch))) return false;
    } while (this.buffer.length >= BATCH_SIZE);
    return true;
  }

  private async write(batch: RequestLogEntry[]): Promise<boolean> {
    try {
      await this.dataSource.query(INSERT_BATCH, [
        batch.map((entry) => entry.merchantId),
        batch.map((entry) => entry.livemode),
        batch.map((entry) => entry.method),
        batch.map((entry) => entry.path),
        batch.map((entry) => entry.status),
        batch.map((entry) => entry.actor),
        batch.map((entry) => entry.apiKeyId),
        batch.map((entry) => entry.consoleUserId),
        batch.map((entry) => entry.requestId),
        batch.map((entry) => entry.latencyMs),
        batch.map((entry) => entry.createdAt),
      ]);
      return true;
    } catch (error) {
      // Dropped, not retried: see the class comment.
      this.logger.error(
        { err: error, dropped: batch.length },
        'Request log batch not written; its entries are dropped',
      );
      return false;
    }
  }

  private reportDropped(): void {
    if (this.droppedWhileFull === 0) return;
    this.logger.error(
      { dropped: this.droppedWhileFull, buffered: MAX_BUFFERED },
      'Request log buffer full; entries dropped',
    );
    this.droppedWhileFull = 0;
  }
}
