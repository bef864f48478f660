import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../../http/client-info';
import { CurrentOperator, OpsAuth } from '../access/ops-access';
import { OperatorSession } from '../access/operator-sessions';
import { RejectPayoutDto } from './payout-decision.dto';
import { PayoutDecisions } from './payout-decisions';
import { PayoutReviewQueue } from './payout-review-queue';

/** The payout review queue (docs/operators.md): read by every operator, decided by admins. */
@ApiExcludeController()
@Controller('ops/api')
export class PayoutReviewsController {
  constructor(
    private readonly queue: PayoutReviewQueue,
    private readonly decisions: PayoutDecisions,
  ) {}

  @Get('payout-reviews')
  @OpsAuth()
  async waiting() {
    return this.queue.waiting();
  }

  @Post('payouts/:id/approve')
  @HttpCode(200)
  @OpsAuth({ admin: true })
  async approve(
    @Param('id') id: string,
    @CurrentOperator() operator: OperatorSession,
    @Req() request: Request,
  ) {
    return this.decisions.approve(operator, id, clientInfo(request));
  }

  @Post('payouts/:id/reject')
  @HttpCode(200)
  @OpsAuth({ admin: true })
  async reject(
    @Param('id') id: string,
    @Body() body: RejectPayoutDto,
    @CurrentOperator() operator: OperatorSession,
    @Req() request: Request,
  ) {
    return this.decisions.reject(operator, id, body.reason, clientInfo(request));
  }
}
