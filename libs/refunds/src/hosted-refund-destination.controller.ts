import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { HOSTED_PAGE_PATH } from '@app/checkout';
import { RefundDestinationDto } from './dto/refund-destination.dto';
import { RefundDestinationAccepted, RefundDestinations } from './refund-destinations.service';

/**
 * The hosted page's refund form posts here (its script, same origin): the customer's address for
 * a refund that `requires_destination`. No API key, like the page: the session id is the credential.
 */
@ApiExcludeController()
@Public()
@Controller(HOSTED_PAGE_PATH.slice(1))
export class HostedRefundDestinationController {
  constructor(private readonly destinations: RefundDestinations) {}

  @Post(':id/refunds/:refundId/destination')
  @HttpCode(200)
  async provide(
    @Param('id') sessionId: string,
    @Param('refundId') refundId: string,
    @Body() body: RefundDestinationDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<RefundDestinationAccepted> {
    response.setHeader('Cache-Control', 'no-store');
    return this.destinations.provide(sessionId, refundId, body.to_address);
  }
}
