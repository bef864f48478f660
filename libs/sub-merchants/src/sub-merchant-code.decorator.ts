import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { SUB_MERCHANT_CODE_HEADER } from './sub-merchant-context';

/**
 * The request's `X-Sub-Merchant-Code` header as sent, undefined without one. The service
 * resolves it (SubMerchantsService.resolveForCreation: PSP accounts only, an active one of theirs).
 */
export const SubMerchantCode = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    context.switchToHttp().getRequest<Request>().header(SUB_MERCHANT_CODE_HEADER),
);

/** Documents the optional `X-Sub-Merchant-Code` header; `description` says what it does here. */
export function ApiSubMerchantCodeHeader(description: string) {
  return ApiHeader({
    name: SUB_MERCHANT_CODE_HEADER,
    required: false,
    description,
    example: 'shop-042',
  });
}
