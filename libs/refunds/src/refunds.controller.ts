import {
  applyDecorators,
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission, SendsMoney } from '@app/auth';
import { ApiErrorResponses, ApiPaginatedResponse, PageResponder } from '@app/common';
import { ApiIdempotentCreate, IdempotencyKey, respondIdempotent } from '@app/idempotency';
import { ApiSubMerchantCodeHeader, SubMerchantCode } from '@app/sub-merchants';
import { CreateRefundDto } from './dto/create-refund.dto';
import { ListRefundsQueryDto } from './dto/list-refunds-query.dto';
import { RefundDto } from './dto/refund.dto';
import { RefundsService } from './refunds.service';

/**
 * What both create routes document besides their operation and path: headers and responses.
 * applyDecorators applies in the order listed, and the document lists headers in that order.
 */
function ApiCreateRefund() {
  return applyDecorators(
    ApiSubMerchantCodeHeader(
      "PSP accounts only: act for this sub-merchant (it must be `active`); another sub-merchant's " +
        'or your own record is then a 404. Without it, any of your records, own or sub-merchants.',
    ),
    ApiIdempotentCreate({
      type: RefundDto,
      noun: 'refund',
      keyRequired: true,
      keyExample: '5d0c7a3e-1f4b-4c2a-9e8d-7b6a5c4d3e21',
    }),
    ApiErrorResponses(400, 401, 403, 404, 409, 413, 422, 429),
  );
}

const REFUSALS =
  '\n\nRefusals, each naming the field in `param`, nothing written: 400 `parameter_missing` ' +
  '(`Idempotency-Key`, or `amount` where no default applies), 400 `invalid_address` (`to_address`), ' +
  '404 `resource_missing`, 409 `idempotency_key_reused`, 422 `amount_above_refundable`, ' +
  '`amount_too_small` (not above twice the network fee), `insufficient_balance`.';

/**
 * Answers that can carry a refund's `destination_url` (its customer's secret): kept by no cache,
 * the console browser's included (review L3).
 */
const NO_STORE = 'no-store';

@ApiTags('Refunds')
@ApiBearerAuth()
@Controller('v1')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post('checkout/sessions/:id/refunds')
  @RequiresPermission('refunds:write')
  @Header('Cache-Control', NO_STORE)
  @SendsMoney('POST /console/api/checkout-sessions/:id/refunds')
  @ApiOperation({
    operationId: 'createCheckoutSessionRefund',
    summary: 'Refund a checkout session',
    description:
      'Gives back what the session received, in the same token on the same network, from your ' +
      'balance (held at once, as for a payout). Refundable: received minus refunds not `Failed` ' +
      'or `Canceled`. Without `amount`: the whole of an `Expired` or `Underpaid` session, the ' +
      "excess of an overpaid one. The network's fee is deducted (`net_amount = amount - fee`). " +
      'Without `to_address` the refund is `requires_destination` and the hosted page of the ' +
      'session asks the customer for an address; it is never sent to the payer automatically ' +
      '(exchanges pay from shared wallets). Then `Pending` → `Processing` → `Completed` or ' +
      '`Failed`, with `refund.*` events. While a payment to the session is still confirming: 409 ' +
      '`invalid_state`. Once a session has a refund that is not `Failed` or `Canceled`, a later ' +
      'payment to it is not credited to it: it is an unmatched transfer (`session_refunded`) you ' +
      'can refund too.' +
      REFUSALS,
  })
  @ApiParam({ name: 'id', description: 'Session id.', example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa' })
  @ApiCreateRefund()
  async createForSession(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: CreateRefundDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDto> {
    return respondIdempotent(
      response,
      await this.refunds.createForSession(merchant, id, body, idempotencyKey, subMerchantCode),
    );
  }

  @Post('unmatched-transfers/:id/refunds')
  @RequiresPermission('refunds:write')
  @Header('Cache-Control', NO_STORE)
  @SendsMoney('POST /console/api/unmatched-transfers/:id/refunds')
  @ApiOperation({
    operationId: 'createUnmatchedTransferRefund',
    summary: 'Refund an unmatched transfer',
    description:
      'Gives back a transfer no session took (wrong network, wrong token, a second payment, a ' +
      'payment to a refunded session), in its own token on its own network. The money comes from ' +
      'the transfer, never from your balance. `to_address` is required (400 `parameter_missing`: ' +
      'no page asks the customer for it). Its whole amount, in full (422 `amount_too_small` for a ' +
      'part); refunded once (409 `resource_already_exists` while ' +
      'a refund of it is not `Failed` or `Canceled`); a reverted transfer is a 409 `invalid_state`. ' +
      'Destination, fee and states as for a session refund.' +
      REFUSALS,
  })
  @ApiParam({
    name: 'id',
    description: 'Unmatched transfer id.',
    example: 'utx_8Jd2Qm5LxW9cTz4Rb8VnK1',
  })
  @ApiCreateRefund()
  async createForUnmatchedTransfer(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
    @Body() body: CreateRefundDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDto> {
    return respondIdempotent(
      response,
      await this.refunds.createForUnmatchedTransfer(
        merchant,
        id,
        body,
        idempotencyKey,
        subMerchantCode,
      ),
    );
  }

  @Get('refunds')
  @RequiresPermission('refunds:read')
  @Header('Cache-Control', NO_STORE)
  @ApiOperation({
    operationId: 'listRefunds',
    summary: 'List refunds',
    description:
      'Your refunds, newest first, as a bare JSON array, with `X-Total-Count` and `Link` headers. ' +
      'Filters `session_id` and `status` (repeatable). Sub-merchant scoping as on session lists: ' +
      'own by default, `include_sub_merchants=true` for all, `sub_merchant_code=X` for one.',
  })
  @ApiPaginatedResponse(RefundDto, 'Refunds')
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Query() query: ListRefundsQueryDto,
    @PageResponder() respond: PageResponder,
  ): Promise<RefundDto[]> {
    return respond(query, (page) => this.refunds.list(merchant, query, page));
  }

  @Get('refunds/:id')
  @RequiresPermission('refunds:read')
  @Header('Cache-Control', NO_STORE)
  @ApiOperation({ operationId: 'getRefund', summary: 'Get a refund' })
  @ApiParam({ name: 'id', description: 'Refund id.', example: 're_4Fq9LmX2cTz7Rb8VnK1pWe' })
  @ApiOkResponse({ type: RefundDto })
  @ApiErrorResponses(401, 404, 429)
  async get(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<RefundDto> {
    return this.refunds.get(merchant, id);
  }

  @Post('refunds/:id/cancel')
  @RequiresPermission('refunds:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelRefund',
    summary: 'Cancel a refund',
    description:
      'While nothing is signed (`requires_destination` or `Pending`): the refund becomes ' +
      '`Canceled` and its amount goes back where it came from. Once `Processing` it is on its way: ' +
      '409 `invalid_state` (also when the customer gives the address at that very moment: read ' +
      'the refund and retry).',
  })
  @ApiParam({ name: 'id', description: 'Refund id.', example: 're_4Fq9LmX2cTz7Rb8VnK1pWe' })
  @ApiOkResponse({ type: RefundDto, description: 'The canceled refund.' })
  @ApiErrorResponses(401, 404, 409, 429)
  async cancel(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') id: string,
  ): Promise<RefundDto> {
    return this.refunds.cancel(merchant, id);
  }
}
