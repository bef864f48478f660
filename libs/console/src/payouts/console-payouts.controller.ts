import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { respondIdempotent } from '@app/idempotency';
import { CreatePayoutDto, PayoutDto, PayoutsService } from '@app/payouts';
import { SubMerchantCode } from '@app/sub-merchants';
import { recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { requireFreshCode } from '../step-up/fresh-code';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { CreateConsolePayoutDto } from './dto/create-console-payout.dto';

/**
 * The console's "Create payout" form. A payout moves money, so it always asks for a fresh
 * two-factor code (sandbox too), checked first; then the payout is created by the very service
 * and idempotency path POST /v1/payouts uses, and the answer is that endpoint's.
 */
@ApiExcludeController()
@Controller('console/api/payouts')
export class ConsolePayoutsController {
  constructor(
    private readonly payouts: PayoutsService,
    private readonly twoFactor: TwoFactorVerifier,
    private readonly dataSource: DataSource,
  ) {}

  @Post()
  @RequiresPermission('payouts:write')
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateConsolePayoutDto,
    // The console's sub-merchant context (docs/console.md), resolved as for POST /v1/payouts.
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutDto> {
    const actor = merchant.actor;
    if (actor.type !== 'console_user') {
      throw new ApiException(ErrorCode.PermissionDenied, 'Only console users create payouts here.');
    }
    const client = clientInfo(request);
    await requireFreshCode(this.dataSource, this.twoFactor, {
      userId: actor.userId,
      merchantId: merchant.merchantId,
      code: body.two_factor_code,
      purpose: 'create a payout',
      client,
    });
    // Audited in the payout's own transaction: an entry exists exactly when the payout does, and
    // a replayed key (which creates nothing) runs no hook.
    const result = await this.payouts.create(
      merchant,
      payoutFieldsOf(body),
      body.idempotency_key,
      subMerchantCode,
      async (manager, payout) => {
        await recordAudit(manager, {
          merchantId: merchant.merchantId,
          actorType: actor.operatorId ? 'operator' : 'console_user',
          actorId: actor.operatorId ?? actor.userId,
          action: 'payout.created',
          targetType: 'payout',
          targetId: payout.id,
          details: { amount: payout.amount, currency: payout.currency, network: payout.network },
          ip: client.ip,
          userAgent: client.userAgent,
        });
      },
    );
    return respondIdempotent(response, result);
  }
}

/**
 * Only the payout's own fields, as POST /v1/payouts receives them: the idempotency fingerprint
 * is the body, so the code (different on every try) must not be in it.
 */
function payoutFieldsOf(body: CreateConsolePayoutDto): CreatePayoutDto {
  const fields: CreatePayoutDto = {
    amount: body.amount,
    currency: body.currency,
    network: body.network,
    to_address: body.to_address,
  };
  if (body.description !== undefined) fields.description = body.description;
  if (body.metadata !== undefined) fields.metadata = body.metadata;
  return fields;
}
