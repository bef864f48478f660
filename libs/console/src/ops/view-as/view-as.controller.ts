import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../../http/client-info';
import { CurrentOperator, OpsAuth } from '../access/ops-access';
import { OperatorSession } from '../access/operator-sessions';
import { StartViewAsDto } from './view-as.dto';
import { DEFAULT_VIEW_MINUTES, ViewGrants } from './view-grants';

/**
 * View as merchant: open to support and admins alike, since it only reads; the reason and the
 * two audit entries are what make it accountable.
 */
@ApiExcludeController()
@Controller('ops/api/view-as')
export class ViewAsController {
  constructor(private readonly grants: ViewGrants) {}

  @Post()
  @HttpCode(201)
  @OpsAuth()
  async start(
    @Body() body: StartViewAsDto,
    @CurrentOperator() operator: OperatorSession,
    @Req() request: Request,
  ) {
    return this.grants.start(
      operator,
      {
        merchantId: body.merchant_id,
        reason: body.reason,
        minutes: body.minutes ?? DEFAULT_VIEW_MINUTES,
      },
      clientInfo(request),
    );
  }

  @Post('end')
  @HttpCode(200)
  @OpsAuth()
  async end(@CurrentOperator() operator: OperatorSession, @Req() request: Request) {
    return { ended: await this.grants.end(operator, clientInfo(request)) };
  }
}
