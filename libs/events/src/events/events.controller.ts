import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { EventDto } from './dto/event.dto';
import { ListEventsQueryDto } from './dto/list-events-query.dto';
import { ResendEventDto } from './dto/resend-event.dto';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto';
import { EventsService } from './events.service';

const EVENT_ID_PARAM = {
  name: 'id',
  description: 'Event id.',
  example: 'evt_5Jd8Qm2LxW9cTz4Rb8VnK1',
};

@ApiTags('Events')
@ApiBearerAuth()
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequiresPermission('events:read')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events',
    description:
      'Every status change of your sessions, their transfers and your payouts, newest first, as a ' +
      'bare JSON array with `X-Total-Count` and `Link` headers. The same events your webhook ' +
      'endpoints receive: use this list to catch up after downtime. Sub-merchant scoping as on ' +
      'other lists.',
  })
  @ApiPaginatedResponse(EventDto, 'Events')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListEventsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<EventDto[]> {
    return respond(query, (page) => this.events.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('events:read')
  @ApiOperation({ operationId: 'getEvent', summary: 'Get an event' })
  @ApiParam(EVENT_ID_PARAM)
  @ApiOkResponse({ type: EventDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<EventDto> {
    return this.events.get(merchant, id);
  }

  @Get(':id/deliveries')
  @RequiresPermission('events:read')
  @ApiOperation({
    operationId: 'listEventDeliveries',
    summary: "An event's webhook deliveries",
    description:
      'One entry per endpoint the event was sent to, with every attempt: time, status code, ' +
      'latency, the start of the response and the error. This is where to look when a webhook ' +
      'did not arrive.',
  })
  @ApiParam(EVENT_ID_PARAM)
  @ApiOkResponse({ type: [WebhookDeliveryDto] })
  @ApiErrorResponses(401, 404, 429)
  async deliveries(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<WebhookDeliveryDto[]> {
    return this.events.deliveries(merchant, id);
  }

  @Post(':id/resend')
  @RequiresPermission('webhook_endpoints:write', 'webhook_deliveries:resend')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'resendEvent',
    summary: 'Send an event again',
    description:
      'Schedules one more attempt now, to one endpoint or to every enabled endpoint that receives ' +
      'the event (an attempt already in flight is left to finish). The receiver sees the same ' +
      '`webhook-id`, so one that already handled it can ignore it. Returns the deliveries.',
  })
  @ApiParam(EVENT_ID_PARAM)
  @ApiAcceptedResponse({ type: [WebhookDeliveryDto] })
  @ApiErrorResponses(400, 401, 404, 409, 429)
  async resend(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: ResendEventDto,
  ): Promise<WebhookDeliveryDto[]> {
    return this.events.resend(merchant, id, body.webhook_endpoint_id);
  }
}
