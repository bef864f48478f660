import { Inject, Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { METRIC_PREFIX, METRICS_REGISTRY } from '@app/metrics';

/** Tables retention deletes from, as the metric's `table` label. */
export type RetainedTable =
  'webhook_attempts' | 'webhook_deliveries' | 'events' | 'idempotency_keys' | 'api_request_log';

/** `payments_retention_deleted_rows_total{table}`: rows this worker deleted past retention. */
@Injectable()
export class RetentionMetrics {
  private readonly rows: Counter<'table'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.rows = new Counter({
      name: `${METRIC_PREFIX}retention_deleted_rows_total`,
      help: 'Rows this worker deleted because they outlived their retention, by table.',
      labelNames: ['table'],
      registers: [registry],
    });
  }

  deleted(table: RetainedTable, rows: number): void {
    if (rows > 0) this.rows.inc({ table }, rows);
  }
}
