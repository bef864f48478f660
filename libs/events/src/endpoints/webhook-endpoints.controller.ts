import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  IntersectionType,
} from '@nestjs/swagger';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import {
  ApiErrorResponses,
  ApiPaginatedResponse,
  PageResponder,
  PaginationQueryDto,
} from '@app/common';
import {
  ApiSubMerchantCodeHeader,
  SubMerchantCode,
  SubMerchantScopeQueryDto,
} from '@app/sub-merchants';
import { EventDto } from '../events/dto/event.dto';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { RecoverWebhookEndpointDto, RecoveryDto } from './dto/recover-webhook-endpoint.dto';
import { RotateSecretDto } from './dto/rotate-secret.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { WebhookEndpointDto, WebhookEndpointWithSecretDto } from './dto/webhook-endpoint.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';

class ListWebhookEndpointsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
) {}

const ENDPOINT_ID_PARAM = {
  name: 'id',
  description: 'Webhook endpoint id.',
  example: 'we_8Kd2Lm9XcTz4Rb8VnK1pWd',
};

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @RequiresPermission('webhook_endpoints:write')
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Every event (or those in `events`) is POSTed to `url` as JSON, signed per the Standard ' +
      'Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and with a ' +
      'Stripe-style `X-Signature: t=<unix>,v1=<hex>`, both with `secret`, shown only in this ' +
      'response. Answer 2xx within 15 s; anything else is retried with backoff for 3 days. See the ' +
      'README for verification in a few lines.',
  })
  @ApiSubMerchantCodeHeader(
    "PSP accounts only: the endpoint receives only this sub-merchant's events.",
  )
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrorResponses(400, 401, 403, 422, 429)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateWebhookEndpointDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
  ): Promise<WebhookEndpointWithSecretDto> {
    return this.endpoints.create(merchant, body, subMerchantCode);
  }

  @Get()
  @RequiresPermission('webhook_endpoints:read')
  @ApiOperation({
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description:
      'Newest first, as a bare JSON array with `X-Total-Count` and `Link` headers; sub-merchant ' +
      'scoping as on other lists. Secrets are never listed.',
  })
  @ApiPaginatedResponse(WebhookEndpointDto, 'Webhook endpoints')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListWebhookEndpointsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<WebhookEndpointDto[]> {
    return respond(query, (page) => this.endpoints.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('webhook_endpoints:read')
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'Get a webhook endpoint' })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<WebhookEndpointDto> {
    return this.endpoints.get(merchant, id);
  }

  @Patch(':id')
  @RequiresPermission('webhook_endpoints:write')
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    description: 'Change `url`, `events`, `description`, or turn it off and on with `enabled`.',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrorResponses(400, 401, 404, 429)
  async update(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    return this.endpoints.update(merchant, id, body);
  }

  @Delete(':id')
  @RequiresPermission('webhook_endpoints:write')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'It receives nothing more; deliveries still queued for it are canceled.',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrorResponses(401, 404, 429)
  async remove(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<void> {
    await this.endpoints.remove(merchant, id);
  }

  @Post(':id/rotate-secret')
  @RequiresPermission('webhook_endpoints:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: "Rotate an endpoint's signing secret",
    description:
      'Returns the new `secret` (shown only here). For `grace_period_hours` (default 24) every ' +
      'delivery carries signatures with both the new and the previous secret, so receivers can ' +
      'switch without dropping a webhook.',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiOkResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrorResponses(400, 401, 404, 429)
  async rotateSecret(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: RotateSecretDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    return this.endpoints.rotateSecret(merchant, id, body.grace_period_hours);
  }

  @Post(':id/test')
  @RequiresPermission('webhook_endpoints:write')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'sendWebhookEndpointTestEvent',
    summary: 'Send a test event',
    description:
      'Queues a `webhook_endpoint.test` event (its `data.object` is the endpoint, `data.test` is ' +
      'true) for this endpoint only, whatever its `events`. It is delivered, signed and retried ' +
      'like any other event, and its attempts are listed at `GET /v1/events/{id}/deliveries`. ' +
      'Returns the event. A disabled endpoint is refused (409): enable it first.',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiAcceptedResponse({
    type: EventDto,
    description: 'The test event, queued for delivery.',
    example: {
      id: 'evt_5Jd8Qm2LxW9cTz4Rb8VnK1',
      type: 'webhook_endpoint.test',
      created_at: '2026-11-28T00:30:00.000Z',
      livemode: false,
      sequence: 2,
      previous_status: null,
      sub_merchant_code: null,
      data: {
        object: {
          id: 'we_8Kd2Lm9XcTz4Rb8VnK1pWd',
          url: 'https://shop.example/webhooks/payments',
          description: 'Order service',
          events: null,
          enabled: true,
          disabled_reason: null,
          disabled_at: null,
          failing_since: null,
          last_success_at: '2026-11-27T18:02:11.000Z',
          previous_secret_expires_at: null,
          sub_merchant_code: null,
          livemode: false,
          created_at: '2026-11-20T09:00:00.000Z',
          updated_at: '2026-11-20T09:00:00.000Z',
        },
        test: true,
      },
    },
  })
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async sendTestEvent(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<EventDto> {
    return this.endpoints.sendTestEvent(merchant, id);
  }

  @Post(':id/recover')
  @RequiresPermission('webhook_endpoints:write', 'webhook_deliveries:resend')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'recoverWebhookEndpoint',
    summary: 'Redeliver failed events',
    description:
      'Schedules one more attempt, now, for every delivery to this endpoint that failed (retries ' +
      'exhausted) for events created since `since`. For after an outage on your side.',
  })
  @ApiParam(ENDPOINT_ID_PARAM)
  @ApiAcceptedResponse({ type: RecoveryDto })
  @ApiErrorResponses(400, 401, 404, 409, 429)
  async recover(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: RecoverWebhookEndpointDto,
  ): Promise<RecoveryDto> {
    return this.endpoints.recover(merchant, id, body);
  }
}
