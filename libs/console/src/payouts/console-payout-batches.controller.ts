import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant, CurrentMerchant, RequiresPermission } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { respondIdempotent } from '@app/idempotency';
import { PayoutBatchDto, PayoutBatchesService } from '@app/payouts';
import { SubMerchantCode } from '@app/sub-merchants';
import { recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { requireFreshCode } from '../step-up/fresh-code';
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
    const actor = merchant.actor;
    if (actor.type !== 'console_user') {
      throw new ApiException(ErrorCode.PermissionDenied, 'Only console users create batches here.');
    }
    const client = clientInfo(request);
    await requireFreshCode(this.dataSource, this.twoFactor, {
      userId: actor.userId,
      merchantId: merchant.merchantId,
      code: body.two_factor_code,
      purpose: 'create a payout batch',
      client,
    });
    // Only the items make the idempotency fingerprint: the code differs on every try, so a retry
    // with the next code replays the first batch. Audited in the batch's own transaction.
    const result = await this.batches.create(
      merchant,
      { items: body.items },
      body.idempotency_key,
      subMerchantCode,
      async (manager, batch) => {
        await recordAudit(manager, {
          merchantId: merchant.merchantId,
          actorType: actor.operatorId ? 'operator' : 'console_user',
          actorId: actor.operatorId ?? actor.userId,
          action: 'payout_batch.created',
          targetType: 'payout_batch',
          targetId: batch.id,
          details: { item_count: batch.item_count },
          ip: client.ip,
          userAgent: client.userAgent,
        });
      },
    );
    return respondIdempotent(response, result);
  }
}
