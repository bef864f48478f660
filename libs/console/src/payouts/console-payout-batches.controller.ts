import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { respondIdempotent } from '@app/idempotency';
import { PayoutBatchDto, PayoutBatchesService } from '@app/payouts';
import { SubMerchantCode } from '@app/sub-merchants';
import { stepUpToSendMoney } from '../step-up/money-step-up';
import { TwoFactorVerifier } from '../two-factor/two-factor-verifier';
import { CreateConsolePayoutBatchDto } from './dto/create-console-payout-batch.dto';

/**
 * The console's "Upload batch (CSV)". A batch moves money, so it asks for a fresh two-factor code
 * (sandbox too), checked first, exactly as the Create payout form; then the batch is created by
 * the very service and idempotency path POST /v1/payout-batches uses (which refuses console
 * sessions), and the answer is that endpoint's, its 422 listing every refused item included.
 */
@ApiExcludeController()
@Controller('console/api/payout-batches')
export class ConsolePayoutBatchesController {
  constructor(
    private readonly batches: PayoutBatchesService,
    private readonly twoFactor: TwoFactorVerifier,
    private readonly dataSource: DataSource,
  ) {}

  @Post()
  @RequiresPermission('payouts:write')
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateConsolePayoutBatchDto,
    @SubMerchantCode() subMerchantCode: string | undefined,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutBatchDto> {
    const actor = await stepUpToSendMoney(this.dataSource, this.twoFactor, merchant, request, {
      code: body.two_factor_code,
      purpose: 'create a payout batch',
      objects: 'batches',
    });
    // Only the items make the idempotency fingerprint: the code differs on every try, so a retry
    // with the next code replays the first batch.
    const result = await this.batches.create(
      merchant,
      { items: body.items },
      body.idempotency_key,
      subMerchantCode,
      (manager, batch) =>
        actor.audit(manager, {
          action: 'payout_batch.created',
          targetType: 'payout_batch',
          targetId: batch.id,
          details: { item_count: batch.item_count },
        }),
    );
    return respondIdempotent(response, result);
  }
}
