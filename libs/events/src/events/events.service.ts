import { Injectable } from '@nestjs/common';
import { ApiException, createdRange, ErrorCode, PageInfo, PageRequest } from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { SubMerchantsService } from '@app/sub-merchants';
import { EventDto } from './dto/event.dto';
import { ListEventsQueryDto } from './dto/list-events-query.dto';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { EventRecord, toEventDto } from './event.mapper';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { DeliveryRecord, EventsRepository } from './events.repository';

function optionalIso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function toDeliveryDto(row: DeliveryRecord): WebhookDeliveryDto {
  return {
    webhook_endpoint_id: row.endpoint_id,
    url: row.url,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.status === 'Pending' ? optionalIso(row.next_attempt_at) : null,
    last_attempt_at: optionalIso(row.last_attempt_at),
    attempts: row.attempts.map((attempt) => ({
      ...attempt,
      attempted_at: new Date(attempt.attempted_at).toISOString(),
    })),
  };
}

@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly subMerchants: SubMerchantsService,
    private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async get(merchant: AuthenticatedMerchant, id: string): Promise<EventDto> {
    return toEventDto(await this.find(merchant, id));
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListEventsQueryDto,
    page: PageRequest,
  ): Promise<{ items: EventDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.events.list(
      {
        merchantId: merchant.merchantId,
        scope,
        types: query.type,
        objectId: query.object_id,
        ...createdRange(query),
      },
      page,
    );
    return { items: rows.map(toEventDto), pageInfo };
  }

  async deliveries(merchant: AuthenticatedMerchant, id: string): Promise<WebhookDeliveryDto[]> {
    const event = await this.find(merchant, id);
    return (await this.events.deliveries(event.id)).map(toDeliveryDto);
  }

  async resend(
    merchant: AuthenticatedMerchant,
    id: string,
    endpointId: string | undefined,
  ): Promise<WebhookDeliveryDto[]> {
    const event = await this.find(merchant, id);
    // A test event goes to the endpoint it tested only, never to the merchant's others.
    const target =
      endpointId ?? (event.type === 'webhook_endpoint.test' ? event.object_id : undefined);
    if (target !== undefined) await this.assertCanReceive(merchant, event, target);
    await this.events.resend(event, target ?? null);
    return (await this.events.deliveries(event.id)).map(toDeliveryDto);
  }

  /** A named endpoint must be the merchant's, enabled, and in the event's sub-merchant scope. */
  private async assertCanReceive(
    merchant: AuthenticatedMerchant,
    event: EventRecord,
    endpointId: string,
  ): Promise<void> {
    const endpoint = await this.endpoints.findForMerchant(merchant.merchantId, endpointId);
    const inScope =
      endpoint &&
      (endpoint.sub_merchant_id === null || endpoint.sub_merchant_id === event.sub_merchant_id);
    if (!inScope) {
      throw ApiException.notFound('webhook endpoint', endpointId, 'webhook_endpoint_id');
    }
    if (!endpoint.enabled) {
      throw new ApiException(
        ErrorCode.WebhookEndpointDisabled,
        `Webhook endpoint '${endpointId}' is disabled (${endpoint.disabled_reason}); enable it first (PATCH enabled: true).`,
        'webhook_endpoint_id',
      );
    }
  }

  private async find(merchant: AuthenticatedMerchant, id: string): Promise<EventRecord> {
    const event = await this.events.findForMerchant(merchant.merchantId, id);
    if (!event) throw ApiException.notFound('event', id);
    return event;
  }
}
