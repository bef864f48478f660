import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AuthenticatedMerchant } from './authenticated-merchant';

export type AuthenticatedRequest = Request & { merchant?: AuthenticatedMerchant };

/** The merchant the bearer guard authenticated for this request. */
export const CurrentMerchant = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedMerchant => {
    const merchant = context.switchToHttp().getRequest<AuthenticatedRequest>().merchant;
    if (!merchant) throw new Error('CurrentMerchant used on a route without authentication');
    return merchant;
  },
);
