import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { HOSTED_PAGE_PATH } from '@app/checkout';
import { RefundDestinationDto, RefundFormAccessDto } from './dto/refund-destination.dto';
import {
  RefundDestinationAccepted,
  RefundDestinations,
  RefundFormAccess,
} from './refund-destinations';

/**
 * The hosted page's refund form (its script, same origin): whether the page's link opens the
 * form, and the customer's address for a refund that `requires_destination`. No API key, like
 * the page; the credential is the refund's secret, which the script reads from the link's
 * fragment and posts in the body (never in a URL: no log or Referer carries it).
 */
@ApiExcludeController()
@Public()
@Controller(HOSTED_PAGE_PATH.slice(1))
export class HostedRefundDestinationController {
  constructor(private readonly destinations: RefundDestinations) {}

  @Post(':id/refunds/:refundId/access')
  @HttpCode(200)
  async access(
    @Param('id') sessionId: string,
    @Param('refundId') refundId: string,
    @Body() body: RefundFormAccessDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundFormAccess> {
    response.setHeader('Cache-Control', 'no-store');
    return this.destinations.access(sessionId, refundId, body.secret);
  }

  @Post(':id/refunds/:refundId/destination')
  @HttpCode(200)
  async provide(
    @Param('id') sessionId: string,
    @Param('refundId') refundId: string,
    @Body() body: RefundDestinationDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDestinationAccepted> {
    response.setHeader('Cache-Control', 'no-store');
    return this.destinations.provide(sessionId, refundId, body.secret, body.to_address);
  }
}
