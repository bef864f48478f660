import { applyDecorators, createParamDecorator, ExecutionContext, Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_RETENTION_HOURS,
  IDEMPOTENT_REPLAYED_HEADER,
} from './idempotency.types';

/**
 * The request's `Idempotency-Key` header as sent, undefined without one (what `@Headers` gives:
 * Node joins a repeated custom header into one string). The service checks its form.
 */
export const IdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    context.switchToHttp().getRequest<Request>().header(IDEMPOTENCY_KEY_HEADER),
);

export interface IdempotentCreateDocs {
  /** The created resource. */
  type: Type<unknown>;
  /** Its name in the sentences: 'payout'. */
  noun: string;
  /** Whether a request without a key is refused (where money leaves: payouts, refunds). */
  keyRequired: boolean;
  keyExample: string;
}

/**
 * Documents a create route that takes an `Idempotency-Key`: the header and the 201, which may be
 * the stored response of an earlier request (`Idempotent-Replayed: true`, see respondIdempotent).
 */
export function ApiIdempotentCreate({ type, noun, keyRequired, keyExample }: IdempotentCreateDocs) {
  const keyForm = `Up to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`;
  const kept = `Kept ${IDEMPOTENCY_RETENTION_HOURS} hours.`;
  return applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: keyRequired,
      description: keyRequired
        ? `Required. ${keyForm}; a UUID v4 per ${noun}. ${kept}`
        : `${keyForm}; a UUID v4 is recommended. ${kept}`,
      example: keyExample,
    }),
    ApiCreatedResponse({
      type,
      description: `The ${noun} was created (or, with \`Idempotent-Replayed: true\`, an earlier one returned).`,
      headers: {
        [IDEMPOTENT_REPLAYED_HEADER]: {
          description:
            '"true" when this is the stored response of an earlier request with the same key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
  );
}
