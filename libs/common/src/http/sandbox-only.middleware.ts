import { Inject, Injectable, NestMiddleware, NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../config/app-config';

const LIVE_BEARER = /^Bearer\s+sk_live_/;

/**
 * Test helpers exist only in the sandbox: in production (APP_ENV=production) and for a request
 * carrying a live key they answer exactly what an unknown route answers (404 route_not_found),
 * before authentication, so they cannot even be discovered there. Middleware runs before the
 * global guards, which would otherwise answer a live key in the sandbox with environment_mismatch.
 */
@Injectable()
export class SandboxOnlyMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(request: Request, _response: Response, next: NextFunction): void {
    if (this.config.livemode || LIVE_BEARER.test(request.header('authorization') ?? '')) {
      throw new NotFoundException();
    }
    next();
  }
}
