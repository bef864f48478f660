import { Body, Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant } from '@app/auth';
import {
  ApiErrorResponses,
  ApiPaginatedResponse,
  setPaginationHeaders,
  toPageRequest,
} from '@app/common';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  respondIdempotent,
} from '@app/idempotency';
import { SUB_MERCHANT_CODE_HEADER } from '@app/sub-merchants';
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
  @ApiOperation({
    operationId: 'createCheckoutSession',
    summary: 'Create a checkout session',
    description:
      'Prices the order, reserves a fresh pay address and returns the hosted-page `url` to redirect ' +
      'the customer to. Send an `Idempotency-Key` to retry safely: the same key and body return the ' +
      'stored response with `Idempotent-Replayed: true`; the same key with another body is a 409.',
  })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'Up to 255 printable ASCII characters; a UUID v4 is recommended. Kept 24 hours.',
    example: '0f8fad5b-d9cb-469f-a165-70867728950e',
  })
  @ApiHeader({
    name: SUB_MERCHANT_CODE_HEADER,
    required: false,
    description:
      'PSP accounts only: create the session for this sub-merchant (it must be `active`). ' +
      'A direct account sending it gets 403; an unknown code 400 `invalid_sub_merchant_code`; ' +
      'a disabled one 422 `sub_merchant_disabled`.',
    example: 'shop-042',
  })
  @ApiCreatedResponse({
    type: CheckoutSessionDto,
    description:
      'The session was created (or, with `Idempotent-Replayed: true`, an earlier one returned).',
    headers: {
      [IDEMPOTENT_REPLAYED_HEADER]: {
        description:
          '"true" when this is the stored response of an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 409, 413, 422, 429, 503)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateCheckoutSessionDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Headers('x-sub-merchant-code') subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto> {
    return respondIdempotent(
      response,
      await this.sessions.create(merchant, body, idempotencyKey, subMerchantCode),
    );
  }

  @Get()
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
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutSessionDto[]> {
    const page = toPageRequest(query);
    const { items, pageInfo } = await this.sessions.list(merchant, query, page);
    setPaginationHeaders(request, response, page, pageInfo);
    return items;
  }

  @Get(':id')
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
