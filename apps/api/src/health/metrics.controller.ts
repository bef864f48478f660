import { Controller, Get, Header, Headers, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { ApiException, ErrorCode } from '@app/common';
import { MetricsService } from '@app/metrics';

/** Prometheus scrape endpoint; behind METRICS_TOKEN when set (docs/operations.md). */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    if (!this.metrics.allows(authorization)) {
      throw new ApiException(
        ErrorCode.AuthenticationFailed,
        'Send the metrics token as `Authorization: Bearer <METRICS_TOKEN>`.',
        undefined,
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
    const body = await this.metrics.render();
    response.setHeader('Content-Type', this.metrics.contentType);
    return body;
  }
}
