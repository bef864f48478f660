import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission, SendsMoney } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { ApiSubMerchantCodeHeader, SubMerchantCode } from '@app/sub-merchants';
import { CreatePayoutBatchDto } from './dto/create-payout-batch.dto';
import { ListPayoutBatchesQueryDto } from './dto/list-payout-batches-query.dto';
import { PayoutBatchDto } from './dto/payout-batch.dto';
import { PayoutBatchesService } from './payout-batches.service';

/** The only route whose JSON body may exceed the global 64 kB (configureHttpApp). */
export const PAYOUT_BATCHES_PATH = '/v1/payout-batches';

@ApiTags('Payouts')
@ApiBearerAuth()
@Controller('v1/payout-batches')
export class PayoutBatchesController {
  constructor(private readonly batches: PayoutBatchesService) {}

  @Post()
  @RequiresPermission('payouts:write')
  @SendsMoney('POST /console/api/payouts')
  @ApiOperation({
    operationId: 'createPayoutBatch',
    summary: 'Create a batch of payouts',
    description:
      'Up to 1,000 payouts in one request (body up to 256 kB), each exactly a `POST /v1/payouts` ' +
      'body and created as one: the same checks, fee and review rules, `payout.created` events, ' +
      'listing (`GET /v1/payouts?batch_id=`), review and sending. All or nothing: every item is ' +
      'checked first, and a 422 `batch_items_invalid` lists every refused item (`error.errors`: ' +
      '`index`, `param`, `code`, `message`) with nothing written. The sum per currency and network ' +
      'is held from your balance in one transaction (422 `insufficient_balance`, nothing written, ' +
      'when it does not cover it). `Idempotency-Key` is required: the same key and body return ' +
      'the same batch, another body with the key is refused.',
  })
  @ApiIdempotentCreate({
    type: PayoutBatchDto,
    noun: 'payout batch',
    keyRequired: true,
    keyExample: '3c1f6a2e-8d94-4b7e-a5c0-7e2d9b1f4a68',
  })
  @ApiSubMerchantCodeHeader(
    "PSP accounts only: pay the whole batch out of this sub-merchant's balance (it must be `active`).",
  )
  @ApiErrorResponses(400, 401, 403, 409, 413, 422, 429)
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreatePayoutBatchDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutBatchDto> {
    return respondIdempotent(
      response,
      await this.batches.create(merchant, body, idempotencyKey, subMerchantCode),
    );
  }

  @Get()
  @RequiresPermission('payouts:read')
  @ApiOperation({
    operationId: 'listPayoutBatches',
    summary: 'List payout batches',
    description:
      'Your batches, newest first, as a bare JSON array, with `X-Total-Count` and `Link` headers; ' +
      'sub-merchant scoping as on payout lists.',
  })
  @ApiPaginatedResponse(PayoutBatchDto, 'Payout batches')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListPayoutBatchesQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<PayoutBatchDto[]> {
    return respond(query, (page) => this.batches.list(merchant, query, page));
  }

  @Get(':id')
  @RequiresPermission('payouts:read')
  @ApiOperation({
    operationId: 'getPayoutBatch',
    summary: 'Get a payout batch',
    description: 'Its status, counts and totals per status, read from its payouts now.',
  })
  @ApiParam({ name: 'id', description: 'Batch id.', example: 'pob_4Fh8KwZ2mQx7Lc1RvT9nJe' })
  @ApiOkResponse({ type: PayoutBatchDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<PayoutBatchDto> {
    return this.batches.get(merchant, id);
  }
}
