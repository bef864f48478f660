import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { ApiSubMerchantCodeHeader, SubMerchantCode } from '@app/sub-merchants';
import { CheckoutSessionsService } from './checkout-sessions.service';
import { CheckoutSessionDto } from './dto/checkout-session.dto';
import { CreateCheckoutSessionDto } from './dto/create-checkout-session.dto';
import { ListCheckoutSessionsQueryDto } from './dto/list-checkout-sessions-query.dto';

@ApiTags('Checkout sessions')
@ApiBearerAuth()
@Controller('v1/checkout/sessions')
export class CheckoutSessionsController {
  constructor(private readonly sessions: CheckoutSessionsService) {}

  @Post()
  @RequiresPermission('checkout_sessions:write')
  @ApiOperation({
    operationId: 'createCheckoutSession',
    summary: 'Create a checkout session',
    description:
      'Prices the order, reserves a fresh pay address and returns the hosted-page `url` to redirect ' +
      'the customer to. Send an `Idempotency-Key` to retry safely: the same key and body return the ' +
      'stored response with `Idempotent-Replayed: true`; the same key with another body is a 409.',
  })
  @ApiIdempotentCreate({
    type: CheckoutSessionDto,
    noun: 'session',
    keyRequired: false,
    keyExample: '0f8fad5b-d9cb-469f-a165-70867728950e',
  })
  @ApiSubMerchantCodeHeader(
    'PSP accounts only: create the session for this sub-merchant (it must be `active`). ' +
      'A direct account sending it gets 403; an unknown code 400 `invalid_sub_merchant_code`; ' +
      'a disabled one 422 `sub_merchant_disabled`.',
  )
  @ApiErrorResponses(400, 401, 403, 409, 413, 422, 429, 503)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateCheckoutSessionDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto> {
    return respondIdempotent(
      response,
      await this.sessions.create(merchant, body, idempotencyKey, subMerchantCode),
    );
  }

  @Get()
  @RequiresPermission('checkout_sessions:read')
  @ApiOperation({
    operationId: 'listCheckoutSessions',
    summary: 'List checkout sessions',
    description:
      'Your sessions, newest first, as a bare JSON array. `X-Total-Count` carries the number of ' +
      'matching sessions (beyond 1,000 `X-Total-Count-At-Least` instead, unless ' +
      '`include_total=true`) and `Link` the neighbouring pages (RFC 8288). `search_text` is an ' +
      'exact session id, pay address or transaction hash. Page by `page` within the first ' +
      '10,000 rows, or at any depth with `starting_after`.\n\n' +
      'PSP accounts: without `include_sub_merchants` or `sub_merchant_code` only your own sessions ' +
      '(created without `X-Sub-Merchant-Code`) are listed; `include_sub_merchants=true` adds every ' +
      "sub-merchant's; `sub_merchant_code=X` lists only X's (and wins over `include_sub_merchants`).",
  })
  @ApiPaginatedResponse(CheckoutSessionDto, 'Sessions')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListCheckoutSessionsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<CheckoutSessionDto[]> {
    return respond(query, (page) => this.sessions.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('checkout_sessions:read')
  @ApiOperation({
    operationId: 'getCheckoutSession',
    summary: 'Get a checkout session',
    description: 'The session with its detected on-chain transactions.',
  })
  @ApiParam({ name: 'id', description: 'Session id.', example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa' })
  @ApiOkResponse({ type: CheckoutSessionDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<CheckoutSessionDto> {
    return this.sessions.get(merchant, id);
  }
}
