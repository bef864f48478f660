import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission, SendsMoney } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { ApiSubMerchantCodeHeader, SubMerchantCode } from '@app/sub-merchants';
import { CreatePayoutDto } from './dto/create-payout.dto';
import { ListPayoutsQueryDto } from './dto/list-payouts-query.dto';
import { PayoutDto } from './dto/payout.dto';
import { PayoutsService } from './payouts.service';
import { PayoutQuoteDto } from './quote/payout-quote.dto';
import { PayoutQuoteService } from './quote/payout-quote.service';

@ApiTags('Payouts')
@ApiBearerAuth()
@Controller('v1/payouts')
export class PayoutsController {
  constructor(
    private readonly payouts: PayoutsService,
    private readonly quotes: PayoutQuoteService,
  ) {}

  @Post()
  @RequiresPermission('payouts:write')
  @SendsMoney('POST /console/api/payouts')
  @ApiOperation({
    operationId: 'createPayout',
    summary: 'Create a payout',
    description:
      'Sends `net_amount = amount - fee` of the token to `to_address`, paid from your balance on that ' +
      'network and currency. The payout is created `Pending` with `amount` held from `available`; a ' +
      'worker signs and broadcasts it (`Processing`, `tx_hash`) and follows it to `Completed` or ' +
      '`Failed` (funds released). Large payouts, and first payouts to new destinations where you ' +
      'asked for it, wait for an operator review (`pending_reason`). `Idempotency-Key` is required: ' +
      'the same key and body return the same payout, so a retry never pays twice.',
  })
  @ApiIdempotentCreate({
    type: PayoutDto,
    noun: 'payout',
    keyRequired: true,
    keyExample: '9b2e0f5c-6a43-4c1e-8f3d-2a7b1c9d4e60',
  })
  @ApiSubMerchantCodeHeader(
    "PSP accounts only: pay out of this sub-merchant's balance (it must be `active`).",
  )
  @ApiErrorResponses(400, 401, 403, 409, 413, 422, 429)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreatePayoutDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutDto> {
    return respondIdempotent(
      response,
      await this.payouts.create(merchant, body, idempotencyKey, subMerchantCode),
    );
  }

  @Post('quote')
  @HttpCode(200)
  // A preview of a write: it tells the exact available balance and whether an address is the
  // service's own, which a read-only key must not learn (docs/payouts.md, Quotes).
  @RequiresPermission('payouts:write')
  @ApiOperation({
    operationId: 'quotePayout',
    summary: 'Quote a payout',
    description:
      'What `POST /v1/payouts` would do with the same body and `X-Sub-Merchant-Code`, computed ' +
      'by the same checks, fee and review rules, and written nowhere (no payout, hold, event or ' +
      'idempotency record; no `Idempotency-Key` needed). Errors in the amount, currency or ' +
      'network are answered as the creation answers them; the destination and the balance are ' +
      'reported instead: `destination.valid` false where the creation answers 400 ' +
      '`invalid_address`, a negative `balance_after` where it answers 422 `insufficient_balance`. ' +
      'A quote reserves nothing: the creation checks again. Needs `payouts:write`, as the ' +
      'creation does: a quote tells the available balance and whether an address is refused ' +
      "as one of the service's own, which a read-only key is not to learn.",
  })
  @ApiOkResponse({ type: PayoutQuoteDto })
  @ApiSubMerchantCodeHeader("PSP accounts only: quote from this sub-merchant's balance.")
  @ApiErrorResponses(400, 401, 403, 413, 422, 429)
  async quote(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreatePayoutDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
  ): Promise<PayoutQuoteDto> {
    return this.quotes.quote(merchant, body, subMerchantCode);
  }

  @Get()
  @RequiresPermission('payouts:read')
  @ApiOperation({
    operationId: 'listPayouts',
    summary: 'List payouts',
    description:
      'Your payouts, newest first, as a bare JSON array, with `X-Total-Count` and `Link` headers. ' +
      'Sub-merchant scoping as on session lists: own by default, `include_sub_merchants=true` for ' +
      'all, `sub_merchant_code=X` for one.',
  })
  @ApiPaginatedResponse(PayoutDto, 'Payouts')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListPayoutsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<PayoutDto[]> {
    return respond(query, (page) => this.payouts.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('payouts:read')
  @ApiOperation({ operationId: 'getPayout', summary: 'Get a payout' })
  @ApiParam({ name: 'id', description: 'Payout id.', example: 'po_7Hq2LmX9cTz4Rb8VnK1pWd' })
  @ApiOkResponse({ type: PayoutDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<PayoutDto> {
    return this.payouts.get(merchant, id);
  }
}
