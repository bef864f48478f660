export {
  createPaymentsClient,
  DEFAULT_BASE_URL,
  IDEMPOTENCY_KEY_HEADER,
  PaymentsClient,
  SUB_MERCHANT_HEADER,
} from './client';
export type { ListItem, ListPath, PaymentsClientOptions } from './client';
export { parseRetryAfter, PaymentsApiError, REQUEST_ID_HEADER } from './errors';
export type { ErrorBody, ErrorCode, ErrorType } from './errors';
export { parseNextLink } from './pagination';
export { DEFAULT_RETRY_POLICY } from './retry';
export type { RetryPolicy } from './retry';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { EventType, WebhookEvent } from './webhooks';
export type { components, operations, paths } from './generated/openapi';

/** A schema of the API by name: `Schema<'CheckoutSession'>`. */
export type Schema<Name extends keyof import('./generated/openapi').components['schemas']> =
  import('./generated/openapi').components['schemas'][Name];
