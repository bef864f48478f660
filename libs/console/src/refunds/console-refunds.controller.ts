import { Body, Controller, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { IdempotentResult, respondIdempotent } from '@app/idempotency';
import { CreateRefundDto, RefundCreatedHook, RefundDto, RefundsService } from '@app/refunds';
import { SubMerchantCode } from '@app/sub-merchants';
import { stepUpToSendMoney } from '../step-up/money-step-up';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { CreateConsoleRefundDto } from './dto/create-console-refund.dto';

/**
 * The console's "Refund" forms: on a payment, and on an unmatched transfer. A refund sends money
 * (to any address given), so it always asks for a fresh two-factor code (sandbox too), checked
 * first; then the refund is created by the very service and idempotency path of its /v1 twin
 * (POST /v1/checkout/sessions/{id}/refunds, POST /v1/unmatched-transfers/{id}/refunds), and the
 * answer is that endpoint's. Those routes refuse console sessions (@SendsMoney).
 */
@ApiExcludeController()
@Controller('console/api')
export class ConsoleRefundsController {
  constructor(
    private readonly refunds: RefundsService,
    private readonly twoFactor: TwoFactorVerifier,
    private readonly dataSource: DataSource,
  ) {}

  @Post('checkout-sessions/:id/refunds')
  @RequiresPermission('refunds:write')
  async createForSession(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') sessionId: string,
    @Body() body: CreateConsoleRefundDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDto> {
    return this.create(merchant, body, request, response, 'refund a payment', (audit) =>
      this.refunds.createForSession(
        merchant,
        sessionId,
        refundFieldsOf(body),
        body.idempotency_key,
        // The console's sub-merchant context, as X-Sub-Merchant-Code scopes the /v1 route.
        subMerchantCode,
        audit,
      ),
    );
  }

  @Post('unmatched-transfers/:id/refunds')
  @RequiresPermission('refunds:write')
  async createForUnmatchedTransfer(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') transferId: string,
    @Body() body: CreateConsoleRefundDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDto> {
    return this.create(merchant, body, request, response, 'refund a transfer', (audit) =>
      this.refunds.createForUnmatchedTransfer(
        merchant,
        transferId,
        refundFieldsOf(body),
        body.idempotency_key,
        subMerchantCode,
        audit,
      ),
    );
  }

  /**
   * The fresh code first, then the creation with its audit entry written in the refund's own
   * transaction (RefundsService's onCreated hook): an entry exists exactly when the refund does,
   * and a replayed key (which creates nothing) writes none.
   */
  private async create(
    merchant: AuthenticatedMerchant,
    body: CreateConsoleRefundDto,
    request: Request,
    response: Response,
    purpose: string,
    createRefund: (audit: RefundCreatedHook) => Promise<IdempotentResult<RefundDto>>,
  ): Promise<RefundDto> {
    const actor = await stepUpToSendMoney(this.dataSource, this.twoFactor, merchant, request, {
      code: body.two_factor_code,
      purpose,
      objects: 'refunds',
    });
    const result = await createRefund((manager, refund) =>
      actor.audit(manager, {
        action: 'refund.created',
        targetType: 'refund',
        targetId: refund.id,
        details: auditDetailsOf(refund),
      }),
    );
    return respondIdempotent(response, result);
  }
}

/** What the entry says of the refund: what it refunds and how much; never the address. */
function auditDetailsOf(refund: RefundDto): Record<string, unknown> {
  const source =
    refund.unmatched_transfer_id !== null
      ? { unmatched_transfer_id: refund.unmatched_transfer_id }
      : { session_id: refund.session_id };
  return { ...source, amount: refund.amount, currency: refund.currency, network: refund.network };
}

/**
 * Only the refund's own fields, as the /v1 route receives them: the idempotency fingerprint is
 * the body, so the code (different on every try) must not be in it, and a key used by the /v1
 * route with the same fields replays the same refund.
 */
function refundFieldsOf(body: CreateConsoleRefundDto): CreateRefundDto {
  const fields: CreateRefundDto = {};
  if (body.amount !== undefined) fields.amount = body.amount;
  if (body.to_address !== undefined) fields.to_address = body.to_address;
  if (body.reason !== undefined) fields.reason = body.reason;
  return fields;
}
