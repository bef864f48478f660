import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { respondIdempotent } from '@app/idempotency';
import { CreatePayoutDto, PayoutDto, PayoutsService } from '@app/payouts';
import { SubMerchantCode } from '@app/sub-merchants';
import { stepUpToSendMoney } from '../step-up/money-step-up';
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
    const actor = await stepUpToSendMoney(this.dataSource, this.twoFactor, merchant, request, {
      code: body.two_factor_code,
      purpose: 'create a payout',
      objects: 'payouts',
    });
    const result = await this.payouts.create(
      merchant,
      payoutFieldsOf(body),
      body.idempotency_key,
      subMerchantCode,
      (manager, payout) =>
        actor.audit(manager, {
          action: 'payout.created',
          targetType: 'payout',
          targetId: payout.id,
          details: { amount: payout.amount, currency: payout.currency, network: payout.network },
        }),
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
