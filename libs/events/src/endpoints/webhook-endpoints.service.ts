import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  APP_CONFIG,
  AppConfig,
  ApiException,
  ErrorCode,
  ID_PREFIX,
  newId,
  PageInfo,
  PageRequest,
} from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { SubMerchantScopeQueryDto, SubMerchantsService } from '@app/sub-merchants';
import { AddressPolicy } from '../delivery/address-policy';
import {
  boundedResolver,
  checkWebhookUrl,
  resolveAllAddresses,
  Resolver,
} from '../delivery/webhook-url';
import { EventDto } from '../events/dto/event.dto';
import { toEventDto } from '../events/event.mapper';
import { EventsRepository } from '../events/events.repository';
import { EventWriter } from '../outbox/event-writer';
import { WebhookSecretBox } from '../signing/webhook-secret-box';
import { newWebhookSecret } from '../signing/webhook-signature';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { RecoverWebhookEndpointDto, RecoveryDto } from './dto/recover-webhook-endpoint.dto';
import { DEFAULT_ROTATION_GRACE_HOURS } from './dto/rotate-secret.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { WebhookEndpointDto, WebhookEndpointWithSecretDto } from './dto/webhook-endpoint.dto';
import { toEndpointWithSecret, toWebhookEndpointDto } from './webhook-endpoint.mapper';
import { WebhookEndpointRecord } from './webhook-endpoint.types';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** As many as Stripe allows: enough for every service of a shop, few enough to stay fast. */
export const MAX_ENDPOINTS_PER_MERCHANT = 16;

// DNS lookups of URL checks, per API process: half of libuv's 4 threads at most, so requests
// naming slow hosts cannot hold the threads file and crypto work needs; a lookup slower than a
// few seconds is refused (the merchant can try again).
const URL_CHECK_DNS = { concurrency: 2, timeoutMs: 5_000 };

@Injectable()
export class WebhookEndpointsService {
  private readonly addressPolicy: AddressPolicy;
  private readonly resolve: Resolver = boundedResolver(resolveAllAddresses, URL_CHECK_DNS);
  private readonly secrets: WebhookSecretBox;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly subMerchants: SubMerchantsService,
    private readonly eventWriter: EventWriter,
    private readonly events: EventsRepository,
  ) {
    this.addressPolicy = { allowPrivate: config.webhooks.allowPrivateUrls };
    this.secrets = new WebhookSecretBox(config.webhooks.secretsKey);
  }

  async create(
    merchant: AuthenticatedMerchant,
    input: CreateWebhookEndpointDto,
    subMerchantCode: string | undefined,
  ): Promise<WebhookEndpointWithSecretDto> {
    const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
    // Before the url's check: a merchant at its limit must not get DNS lookups done for it.
    if ((await this.endpoints.countLive(merchant.merchantId)) >= MAX_ENDPOINTS_PER_MERCHANT) {
      throw new ApiException(
        ErrorCode.LimitExceeded,
        `An account can have at most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints; delete one first.`,
      );
    }
    const url = await this.checkedUrl(input.url);
    const id = newId(ID_PREFIX.webhookEndpoint);
    const secret = newWebhookSecret();
    await this.endpoints.insert({
      id,
      merchantId: merchant.merchantId,
      subMerchantId: subMerchant?.id ?? null,
      livemode: this.config.livemode,
      url,
      description: input.description ?? null,
      eventTypes: input.events ?? null,
      sealedSecret: this.secrets.seal(secret, id),
    });
    return toEndpointWithSecret(await this.find(merchant, id), secret);
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<WebhookEndpointDto> {
    return toWebhookEndpointDto(await this.find(merchant, id));
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: SubMerchantScopeQueryDto,
    page: PageRequest,
  ): Promise<{ items: WebhookEndpointDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.endpoints.list(
      {
        merchantId: merchant.merchantId,
        scope,
      },
      page,
    );
    return { items: rows.map(toWebhookEndpointDto), pageInfo };
  }

  async update(
    merchant: AuthenticatedMerchant,
    id: string,
    input: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    await this.find(merchant, id);
    const url = input.url === undefined ? undefined : await this.checkedUrl(input.url);
    await this.dataSource.transaction(async (manager) => {
      await this.endpoints.update(manager, id, {
        url,
        description: input.description,
        eventTypes: input.events,
      });
      if (input.enabled === true) await this.endpoints.enable(manager, id);
      if (input.enabled === false)
        await this.endpoints.disable(manager, id, 'disabled_by_merchant');
    });
    return this.get(merchant, id);
  }

  async remove(merchant: AuthenticatedMerchant, id: string): Promise<void> {
    await this.find(merchant, id);
    await this.dataSource.transaction((manager) => this.endpoints.softDelete(manager, id));
  }

  async rotateSecret(
    merchant: AuthenticatedMerchant,
    id: string,
    graceHours = DEFAULT_ROTATION_GRACE_HOURS,
  ): Promise<WebhookEndpointWithSecretDto> {
    await this.find(merchant, id);
    const secret = newWebhookSecret();
    await this.endpoints.rotateSecret(id, this.secrets.seal(secret, id), graceHours);
    return toEndpointWithSecret(await this.find(merchant, id), secret);
  }

  async recover(
    merchant: AuthenticatedMerchant,
    id: string,
    input: RecoverWebhookEndpointDto,
  ): Promise<RecoveryDto> {
    const endpoint = await this.find(merchant, id);
    if (!endpoint.enabled) {
      throw new ApiException(
        ErrorCode.WebhookEndpointDisabled,
        `Webhook endpoint '${id}' is disabled (${endpoint.disabled_reason}); enable it first (PATCH enabled: true).`,
      );
    }
    const since = new Date(input.since);
    const until = input.until ? new Date(input.until) : new Date();
    if (since.getTime() >= until.getTime()) {
      throw new ApiException(ErrorCode.ParameterInvalid, 'since must be before until.', 'since');
    }
    return { scheduled: await this.endpoints.recover(id, since, until) };
  }

  /**
   * A `webhook_endpoint.test` event, delivered to this endpoint only (whatever its `events`)
   * through the ordinary queue: signed, retried and listed with its attempts like any other.
   */
  async sendTestEvent(merchant: AuthenticatedMerchant, id: string): Promise<EventDto> {
    const eventId = await this.dataSource.transaction(async (manager) => {
      const endpoint = await this.endpoints.lockForMerchant(manager, merchant.merchantId, id);
      if (!endpoint) throw ApiException.notFound('webhook endpoint', id);
      if (!endpoint.enabled) {
        throw new ApiException(
          ErrorCode.WebhookEndpointDisabled,
          `Webhook endpoint '${id}' is disabled (${endpoint.disabled_reason}); enable it first (PATCH enabled: true).`,
        );
      }
      return this.eventWriter.recordFor(
        manager,
        {
          type: 'webhook_endpoint.test',
          merchantId: endpoint.merchant_id,
          subMerchantId: endpoint.sub_merchant_id,
          subMerchantCode: endpoint.sub_merchant_code,
          objectType: 'webhook_endpoint',
          objectId: endpoint.id,
          previousStatus: null,
          data: { object: toWebhookEndpointDto(endpoint), test: true },
        },
        endpoint.id,
      );
    });
    const event = await this.events.findForMerchant(merchant.merchantId, eventId);
    if (!event) throw ApiException.notFound('event', eventId);
    return toEventDto(event);
  }

  private async find(merchant: AuthenticatedMerchant, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.endpoints.findForMerchant(merchant.merchantId, id);
    if (!endpoint) throw ApiException.notFound('webhook endpoint', id);
    return endpoint;
  }

  private async checkedUrl(raw: string): Promise<string> {
    const check = await checkWebhookUrl(raw, this.addressPolicy, this.resolve);
    if (!check.ok) throw new ApiException(ErrorCode.ParameterInvalid, check.reason, 'url');
    return check.url;
  }
}
