import { IsIn, IsOptional, Matches } from 'class-validator';
import { ChainVariables } from './chain-variables';
import { IntegerSetting } from './integer-setting';

/**
 * The variables of webhook delivery (docs/events-and-webhooks.md). A base class of
 * EnvironmentVariables, after ChainVariables in the chain (see EnvironmentVariables for why).
 */
export class WebhookVariables extends ChainVariables {
  // Loopback and private networks are for local development only; link-local and cloud metadata
  // addresses are refused even then (see docs/events-and-webhooks.md).
  @IsIn(['true', 'false'], { message: 'WEBHOOKS_ALLOW_PRIVATE_URLS must be "true" or "false".' })
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' | 'false' = 'false';

  @IntegerSetting({ min: 100, max: 60000 })
  WEBHOOK_TIMEOUT_MS = 15000;

  @IntegerSetting({ min: 10, max: 10000 })
  WEBHOOK_POLL_INTERVAL_MS = 100;

  @IntegerSetting({ min: 1, max: 2000 })
  WEBHOOK_CONCURRENCY = 512;

  @IntegerSetting({ min: 1, max: 500 })
  WEBHOOK_ENDPOINT_CONCURRENCY = 32;

  // AES-256-GCM key of the webhook signing secrets at rest (docs/events-and-webhooks.md), 32 bytes
  // as 64 hex digits (`openssl rand -hex 32`). Required in production; the sandbox falls back to
  // a fixed development key. Messages never repeat it.
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, {
    message:
      'WEBHOOK_SECRETS_KEY must be 64 hex digits (32 bytes), e.g. from `openssl rand -hex 32`.',
  })
  WEBHOOK_SECRETS_KEY?: string;

  // Per merchant: one merchant's slow endpoints (16 of them) could otherwise take every slot.
  @IntegerSetting({ min: 1, max: 2000 })
  WEBHOOK_MERCHANT_CONCURRENCY = 64;

  // An answer slower than this counts as a failure for the endpoint's circuit breaker.
  @IntegerSetting({ min: 100, max: 60000 })
  WEBHOOK_SLOW_RESPONSE_MS = 5000;
}
