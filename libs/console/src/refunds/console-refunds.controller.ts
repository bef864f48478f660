import { Body, Controller, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { respondIdempotent } from '@app/idempotency';
import { CreateRefundDto, RefundDto, RefundsService } from '@app/refunds';
import { SubMerchantCode } from '@app/sub-merchants';
import { recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { requireFreshCode } from '../step-up/fresh-code';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { CreateConsoleRefundDto } from './dto/create-console-refund.dto';

/**
 * The console's "Refund" form on a payment. A refund sends money (to any address given), so it
 * always asks for a fresh two-factor code (sandbox too), checked first; then the refund is
 * created by the very service and idempotency path POST /v1/checkout/sessions/{id}/refunds uses,
 * and the answer is that endpoint's. That route refuses console sessions (@SendsMoney).
 */
@ApiExcludeController()
@Controller('console/api/checkout-sessions')
export class ConsoleRefundsController {
  constructor(
    private readonly refunds: RefundsService,
    private readonly twoFactor: TwoFactorVerifier,
    private readonly dataSource: DataSource,
  ) {}

  @Post(':id/refunds')
  @RequiresPermission('refunds:write')
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('id') sessionId: string,
    @Body() body: CreateConsoleRefundDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDto> {
    const actor = merchant.actor;
    if (actor.type !== 'console_user') {
      throw new ApiException(ErrorCode.PermissionDenied, 'Only console users create refunds here.');
    }
    const client = clientInfo(request);
    await requireFreshCode(this.dataSource, this.twoFactor, {
      userId: actor.userId,
      merchantId: merchant.merchantId,
      code: body.two_factor_code,
      purpose: 'refund a payment',
      client,
    });
    const result = await this.refunds.createForSession(
      merchant,
      sessionId,
      refundFieldsOf(body),
      body.idempotency_key,
      // The console's sub-merchant context, as X-Sub-Merchant-Code scopes the /v1 route.
      subMerchantCode,
    );
    // RefundsService takes no EntityManager: audited right after its commit, once per refund
    // (a replayed key created nothing), as console payouts are.
    if (!result.replayed) {
      const refund = result.response.body;
      await recordAudit(this.dataSource.manager, {
        merchantId: merchant.merchantId,
        actorType: actor.operatorId ? 'operator' : 'console_user',
        actorId: actor.operatorId ?? actor.userId,
        action: 'refund.created',
        targetType: 'refund',
        targetId: refund.id,
        details: {
          session_id: refund.session_id,
          amount: refund.amount,
          currency: refund.currency,
          network: refund.network,
        },
        ip: client.ip,
        userAgent: client.userAgent,
      });
    }
    return respondIdempotent(response, result);
  }
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
