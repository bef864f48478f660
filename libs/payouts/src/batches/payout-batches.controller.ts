import { applyDecorators, Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission, SendsMoney } from '@app/auth';
import {
  ApiErrorResponses,
  ApiPaginatedResponse,
  ErrorResponseDto,
  PageResponder,
} from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { ApiSubMerchantCodeHeader, SubMerchantCode } from '@app/sub-merchants';
import { CreatePayoutBatchDto } from './dto/create-payout-batch.dto';
import { ListPayoutBatchesQueryDto } from './dto/list-payout-batches-query.dto';
import { PayoutBatchDto } from './dto/payout-batch.dto';
import { PayoutBatchesService } from './payout-batches.service';

const REQUEST_ID_EXAMPLE = 'req_5kJ2bQ9x0aZ1cD3eF4gH6i';

/** The creation's own 413 and 422: its body limit, and every refused item listed. */
function ApiBatchErrorResponses() {
  const example = (summary: string, error: object) => ({
    summary,
    value: { error: { type: 'invalid_request_error', ...error, request_id: REQUEST_ID_EXAMPLE } },
  });
  return applyDecorators(
    ApiResponse({
      status: 413,
      description: 'The request body is larger than 256 kB (this route only; others take 64 kB).',
      type: ErrorResponseDto,
      examples: {
        request_too_large: example('request_too_large', {
          code: 'request_too_large',
          message: 'The request body is larger than 256 kB.',
        }),
      },
    }),
    ApiResponse({
      status: 422,
      description:
        'Items refused (`batch_items_invalid`, every one in `error.errors`), or a sum the balance ' +
        'does not cover (`insufficient_balance`). Nothing was written.',
      type: ErrorResponseDto,
      examples: {
        batch_items_invalid: example('batch_items_invalid', {
          code: 'batch_items_invalid',
          message:
            "2 of the batch's payouts cannot be created; nothing was written. error.errors lists each (index, param, code, message).",
          param: 'items',
          errors: [
            {
              index: 3,
              param: 'to_address',
              code: 'invalid_address',
              message: 'to_address is not a TRON address (base58check, starting with T).',
            },
            {
              index: 41,
              param: 'amount',
              code: 'parameter_invalid',
              message: 'amount must be between 1 and 1000000 per payout.',
            },
          ],
        }),
        insufficient_balance: example('insufficient_balance', {
          code: 'insufficient_balance',
          message:
            "Insufficient balance: 1200 USDT available on TRON, 1250.5 requested by the batch's payouts in USDT on TRON.",
          param: 'items',
        }),
      },
    }),
  );
}

@ApiTags('Payouts')
@ApiBearerAuth()
@Controller('v1/payout-batches')
export class PayoutBatchesController {
  constructor(private readonly batches: PayoutBatchesService) {}

  @Post()
  @RequiresPermission('payouts:write')
  @SendsMoney('POST /console/api/payout-batches')
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
  @ApiErrorResponses(400, 401, 403, 409, 429)
  @ApiBatchErrorResponses()
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
