/**
 * The `code` field of every error response. Codes are part of the public contract:
 * add new ones freely, never rename or remove one that has shipped.
 */
export enum ErrorCode {
  ParameterInvalid = 'parameter_invalid',
  ParameterMissing = 'parameter_missing',
  AuthenticationFailed = 'authentication_failed',
  EnvironmentMismatch = 'environment_mismatch',
  PermissionDenied = 'permission_denied',
  InsufficientScope = 'insufficient_scope',
  CsrfFailed = 'csrf_failed',
  TwoFactorRequired = 'two_factor_required',
  ResourceMissing = 'resource_missing',
  RouteNotFound = 'route_not_found',
  IdempotencyKeyReused = 'idempotency_key_reused',
  IdempotencyInProgress = 'idempotency_in_progress',
  InsufficientBalance = 'insufficient_balance',
  InvalidAddress = 'invalid_address',
  BatchItemsInvalid = 'batch_items_invalid',
  UnsupportedNetworkCurrency = 'unsupported_network_currency',
  InvalidSubMerchantCode = 'invalid_sub_merchant_code',
  SubMerchantDisabled = 'sub_merchant_disabled',
  ResourceAlreadyExists = 'resource_already_exists',
  WebhookEndpointDisabled = 'webhook_endpoint_disabled',
  LimitExceeded = 'limit_exceeded',
  AmountTooSmall = 'amount_too_small',
  AmountAboveRefundable = 'amount_above_refundable',
  InvalidState = 'invalid_state',
  RequestTooLarge = 'request_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  RateLimited = 'rate_limited',
  ApiError = 'api_error',
  ServiceUnavailable = 'service_unavailable',
}

/** The `type` field groups codes the way a client reacts to them. */
export enum ErrorType {
  InvalidRequest = 'invalid_request_error',
  Authentication = 'authentication_error',
  Permission = 'permission_error',
  Idempotency = 'idempotency_error',
  RateLimit = 'rate_limit_error',
  Api = 'api_error',
}

interface CodeSpec {
  status: number;
  type: ErrorType;
}

// One place decides the HTTP status and type of each code, so the filter stays exhaustive.
export const ERROR_CODE_SPECS: Record<ErrorCode, CodeSpec> = {
  [ErrorCode.ParameterInvalid]: { status: 400, type: ErrorType.InvalidRequest },
  [ErrorCode.ParameterMissing]: { status: 400, type: ErrorType.InvalidRequest },
  [ErrorCode.InvalidSubMerchantCode]: { status: 400, type: ErrorType.InvalidRequest },
  [ErrorCode.InvalidAddress]: { status: 400, type: ErrorType.InvalidRequest },
  [ErrorCode.AuthenticationFailed]: { status: 401, type: ErrorType.Authentication },
  [ErrorCode.EnvironmentMismatch]: { status: 401, type: ErrorType.Authentication },
  [ErrorCode.PermissionDenied]: { status: 403, type: ErrorType.Permission },
  [ErrorCode.InsufficientScope]: { status: 403, type: ErrorType.Permission },
  [ErrorCode.CsrfFailed]: { status: 403, type: ErrorType.Permission },
  [ErrorCode.TwoFactorRequired]: { status: 401, type: ErrorType.Authentication },
  [ErrorCode.ResourceMissing]: { status: 404, type: ErrorType.InvalidRequest },
  [ErrorCode.RouteNotFound]: { status: 404, type: ErrorType.InvalidRequest },
  [ErrorCode.IdempotencyKeyReused]: { status: 409, type: ErrorType.Idempotency },
  [ErrorCode.IdempotencyInProgress]: { status: 409, type: ErrorType.Idempotency },
  [ErrorCode.ResourceAlreadyExists]: { status: 409, type: ErrorType.InvalidRequest },
  [ErrorCode.WebhookEndpointDisabled]: { status: 409, type: ErrorType.InvalidRequest },
  [ErrorCode.LimitExceeded]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.AmountTooSmall]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.AmountAboveRefundable]: { status: 422, type: ErrorType.InvalidRequest },
  // The resource's status does not allow the action (e.g. canceling a refund already sent).
  [ErrorCode.InvalidState]: { status: 409, type: ErrorType.InvalidRequest },
  [ErrorCode.RequestTooLarge]: { status: 413, type: ErrorType.InvalidRequest },
  [ErrorCode.UnsupportedMediaType]: { status: 415, type: ErrorType.InvalidRequest },
  [ErrorCode.InsufficientBalance]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.BatchItemsInvalid]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.UnsupportedNetworkCurrency]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.SubMerchantDisabled]: { status: 422, type: ErrorType.InvalidRequest },
  [ErrorCode.RateLimited]: { status: 429, type: ErrorType.RateLimit },
  [ErrorCode.ApiError]: { status: 500, type: ErrorType.Api },
  [ErrorCode.ServiceUnavailable]: { status: 503, type: ErrorType.Api },
};
