import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { ReadinessCheck } from './readiness';

/**
 * Liveness and readiness for orchestrators and load balancers; not part of the merchant API
 * (docs/operations.md). Answered by this controller itself, 503s included, so the body is
 * Terminus's result rather than the API's error envelope.
 */
@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessCheck) {}

  /** The original check (the database only), kept for existing probes. */
  @Get()
  @Header('Cache-Control', 'no-store')
  async check(@Res({ passthrough: true }) response: Response) {
    const result = await this.readiness.checkDatabase();
    if (result.status !== 'ok') response.status(503);
    return result;
  }

  /** The process is up and its event loop turns; depends on nothing, so it never restarts a pod over an outage elsewhere. */
  @Get('live')
  @Header('Cache-Control', 'no-store')
  live() {
    return { status: 'ok' };
  }

  /** Whether to send traffic here: 503 when PostgreSQL or Redis is down, or while shutting down. */
  @Get('ready')
  @Header('Cache-Control', 'no-store')
  async ready(@Res({ passthrough: true }) response: Response) {
    const result = await this.readiness.check();
    if (result.status === 'error' || result.status === 'shutting_down') response.status(503);
    return result;
  }
}
