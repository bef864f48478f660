import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { assertPreSessionRequest } from '../csrf/csrf';

/** Same-origin JSON only, for the console routes that come before a session. */
@Injectable()
export class PreSessionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    assertPreSessionRequest(context.switchToHttp().getRequest<Request>());
    return true;
  }
}
