import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CODE_SPECS, ErrorCode } from './error-code';
import { ErrorResponseDto } from './error-response.dto';

type DocumentedStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503;

const DESCRIPTIONS: Record<DocumentedStatus, string> = {
  400: 'Invalid input; `param` names the field, query parameter or header.',
  401: 'Missing, malformed, unknown or revoked API key, or a key of the other environment.',
  403: 'The key may not do this.',
  404: 'No such resource for this merchant.',
  409: 'Idempotency conflict, or the resource already exists.',
  413: 'The request body is larger than 64 kB.',
  422: 'The request is well-formed but breaks a business rule.',
  429: 'Too many requests; see `Retry-After`.',
  503: 'A dependency is unavailable (e.g. exchange rates too old to price in this currency); retry after `Retry-After`.',
};

const EXAMPLE_CODES: Record<DocumentedStatus, ErrorCode[]> = {
  400: [ErrorCode.ParameterInvalid, ErrorCode.ParameterMissing],
  401: [ErrorCode.AuthenticationFailed, ErrorCode.EnvironmentMismatch],
  403: [ErrorCode.PermissionDenied],
  404: [ErrorCode.ResourceMissing],
  409: [ErrorCode.IdempotencyKeyReused, ErrorCode.IdempotencyInProgress],
  413: [ErrorCode.RequestTooLarge],
  422: [ErrorCode.UnsupportedNetworkCurrency],
  429: [ErrorCode.RateLimited],
  503: [ErrorCode.ServiceUnavailable],
};

const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, { message: string; param?: string }>> = {
  [ErrorCode.ParameterInvalid]: {
    message: 'pricing_amount must have at most 6 fractional digits.',
    param: 'pricing_amount',
  },
  [ErrorCode.ParameterMissing]: { message: 'network is required.', param: 'network' },
  [ErrorCode.AuthenticationFailed]: {
    message: 'Invalid API key: unknown or revoked.',
    param: 'Authorization',
  },
  [ErrorCode.EnvironmentMismatch]: {
    message: 'A production key (sk_live_) was sent to the sandbox. Use an sk_test_ key.',
    param: 'Authorization',
  },
  [ErrorCode.PermissionDenied]: { message: 'Only PSP accounts may use X-Sub-Merchant-Code.' },
  [ErrorCode.ResourceMissing]: {
    message: "No such checkout session: 'cs_3kTMd9Q2xLp8RvB1nY7cZa'.",
    param: 'id',
  },
  [ErrorCode.IdempotencyKeyReused]: {
    message: 'This Idempotency-Key was already used with a different request.',
    param: 'Idempotency-Key',
  },
  [ErrorCode.IdempotencyInProgress]: {
    message: 'A request with this Idempotency-Key is still being processed. Retry in a moment.',
    param: 'Idempotency-Key',
  },
  [ErrorCode.RequestTooLarge]: { message: 'The request body is larger than 64 kB.' },
  [ErrorCode.UnsupportedNetworkCurrency]: {
    message: 'USDC is not available on TRON (TRON Nile).',
    param: 'currency',
  },
  [ErrorCode.RateLimited]: { message: 'Too many requests. Retry later.' },
  [ErrorCode.ServiceUnavailable]: {
    message:
      'Exchange rates for EUR are out of date; sessions priced in EUR cannot be created now.',
    param: 'pricing_currency',
  },
};

/** Documents the error envelope for each status an operation can answer with, with examples. */
export function ApiErrorResponses(...statuses: DocumentedStatus[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status],
        type: ErrorResponseDto,
        examples: Object.fromEntries(
          EXAMPLE_CODES[status].map((code) => [
            code,
            {
              summary: code,
              value: {
                error: {
                  type: ERROR_CODE_SPECS[code].type,
                  code,
                  ...EXAMPLE_MESSAGES[code],
                  request_id: 'req_5kJ2bQ9x0aZ1cD3eF4gH6i',
                },
              },
            },
          ]),
        ),
      }),
    ),
  );
}
