import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { toWebhookEndpointDto } from '../endpoints/webhook-endpoint.mapper';
import { DisabledReason, WebhookEndpointRecord } from '../endpoints/webhook-endpoint.types';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { EventWriter } from '../outbox/event-writer';

/** An endpoint that has failed every attempt this long is disabled (as Svix does). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

// A healthy endpoint's row is touched at most this often, not at every delivery.
const SUCCESS_STAMP_INTERVAL = '1 minute';

/**
 * Keeps each endpoint's failing_since and disables it, visibly (a field and an event to the
 * merchant's other endpoints), when it answers 410 Gone or has failed for 5 days.
 */
@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger(EndpointHealth.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly events: EventWriter,
  ) {}

  async succeeded(endpointId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_endpoints SET failing_since = NULL, last_success_at = now()
        WHERE id = $1 AND (failing_since IS NOT NULL OR last_success_at IS NULL
                           OR last_success_at < now() - interval '${SUCCESS_STAMP_INTERVAL}')`,
      [endpointId],
    );
  }

  async failed(endpointId: string, attemptedAt: Date, gone: boolean): Promise<void> {
    const [row]: Array<{ failing_since: Date; enabled: boolean }> = await this.dataSource.query(
      `WITH stamped AS (
         UPDATE webhook_endpoints SET failing_since = $2
          WHERE id = $1 AND failing_since IS NULL RETURNING failing_since, enabled)
       SELECT failing_since, enabled FROM stamped
       UNION ALL SELECT failing_since, enabled FROM webhook_endpoints
        WHERE id = $1 AND failing_since IS NOT NULL`,
      [endpointId, attemptedAt],
    );
    if (!row?.enabled) return;
    if (gone) return this.disable(endpointId, 'endpoint_gone');
    if (Date.now() - new Date(row.failing_since).getTime() >= DISABLE_AFTER_FAILING_MS) {
      return this.disable(endpointId, 'failing');
    }
  }

  private async disable(endpointId: string, reason: DisabledReason): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.endpoints.disable(manager, endpointId, reason))) return;
      const [endpoint]: WebhookEndpointRecord[] = await manager.query(
        `SELECT w.*, sm.code AS sub_merchant_code
           FROM webhook_endpoints w LEFT JOIN sub_merchants sm ON sm.id = w.sub_merchant_id
          WHERE w.id = $1`,
        [endpointId],
      );
      await this.events.record(manager, {
        type: 'webhook_endpoint.disabled',
        merchantId: endpoint.merchant_id,
        subMerchantId: endpoint.sub_merchant_id,
        subMerchantCode: endpoint.sub_merchant_code,
        objectType: 'webhook_endpoint',
        objectId: endpoint.id,
        previousStatus: null,
        data: { object: toWebhookEndpointDto(endpoint) },
      });
      this.logger.warn({ endpointId, reason }, 'Webhook endpoint disabled');
    });
  }
}
