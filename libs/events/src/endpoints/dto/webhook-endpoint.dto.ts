import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES, EventType } from '../../event-types';
import { DISABLED_REASONS, DisabledReason } from '../webhook-endpoint.types';

@ApiSchema({ name: 'WebhookEndpoint' })
export class WebhookEndpointDto {
  @ApiProperty({ example: 'we_8Kd2Lm9XcTz4Rb8VnK1pWd' })
  id: string;

  @ApiProperty({ example: 'https://shop.example/webhooks/payments' })
  url: string;

  @ApiProperty({ nullable: true, type: String, example: 'Order service' })
  description: string | null;

  @ApiProperty({
    enum: EVENT_TYPES,
    isArray: true,
    nullable: true,
    description: 'The event types this endpoint receives; null for every type (new ones included).',
    example: ['checkout.session.paid', 'payout.completed', 'payout.failed'],
  })
  events: EventType[] | null;

  @ApiProperty({
    description: 'false: it receives nothing (see `disabled_reason`).',
    example: true,
  })
  enabled: boolean;

  // null listed among the values: `nullable` alone does not admit null into an enum (OpenAPI 3.0.3).
  @ApiProperty({
    enum: [...DISABLED_REASONS, null],
    nullable: true,
    description:
      '`disabled_by_merchant` (PATCH `enabled: false`), `endpoint_gone` (it answered 410 Gone), ' +
      '`failing` (every attempt failed for 5 days). Events meanwhile are kept: see ' +
      '`POST /v1/webhook-endpoints/{id}/recover`.',
    example: null,
  })
  disabled_reason: DisabledReason | null;

  @ApiProperty({ nullable: true, type: String, example: null })
  disabled_at: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Since when every attempt has failed (null while healthy). After 5 days the endpoint is ' +
      'disabled and a `webhook_endpoint.disabled` event is sent to your other endpoints.',
    example: null,
  })
  failing_since: string | null;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-23T10:15:30.456Z' })
  last_success_at: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'After a secret rotation: until when the previous secret still signs every delivery too.',
    example: null,
  })
  previous_secret_expires_at: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'PSP accounts: the sub-merchant whose events alone this endpoint receives.',
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: '2026-11-23T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ example: '2026-11-23T10:00:00.000Z' })
  updated_at: string;
}

@ApiSchema({ name: 'WebhookEndpointWithSecret' })
export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    description:
      'The signing secret (Standard Webhooks format). Shown only when the endpoint is created and ' +
      'when its secret is rotated: store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret: string;
}
