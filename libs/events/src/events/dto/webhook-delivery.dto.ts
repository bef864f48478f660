import { ApiProperty, ApiSchema } from '@nestjs/swagger';

export const DELIVERY_STATUSES = ['Pending', 'Succeeded', 'Failed', 'Canceled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

@ApiSchema({ name: 'WebhookAttempt' })
export class WebhookAttemptDto {
  @ApiProperty({ example: '2026-11-23T10:15:30.456Z' })
  attempted_at: string;

  @ApiProperty({
    nullable: true,
    type: Number,
    description: "The endpoint's HTTP status; null when no response came (see `error`).",
    example: 500,
  })
  status_code: number | null;

  @ApiProperty({ description: 'From sending the request to the end of the answer.', example: 84 })
  latency_ms: number;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The first 500 characters of the response body.',
    example: 'Internal Server Error',
  })
  response_excerpt: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Why the attempt failed without a response, or what a failing status meant.',
    example: 'timed out after 15000 ms',
  })
  error: string | null;

  @ApiProperty({ description: 'true for a 2xx answer.', example: false })
  succeeded: boolean;
}

@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryDto {
  @ApiProperty({ example: 'we_8Kd2Lm9XcTz4Rb8VnK1pWd' })
  webhook_endpoint_id: string;

  @ApiProperty({ description: "The endpoint's url now.", example: 'https://shop.example/webhooks' })
  url: string;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      '`Pending` (due or waiting for a retry), `Succeeded` (a 2xx answer), `Failed` (retries ' +
      'exhausted, or resend it), `Canceled` (its endpoint was deleted).',
    example: 'Succeeded',
  })
  status: DeliveryStatus;

  @ApiProperty({ example: 2 })
  attempt_count: number;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'When the next attempt is due (Pending only); null while its endpoint is disabled.',
    example: null,
  })
  next_attempt_at: string | null;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-23T10:15:30.456Z' })
  last_attempt_at: string | null;

  @ApiProperty({ type: [WebhookAttemptDto], description: 'Every attempt, oldest first.' })
  attempts: WebhookAttemptDto[];
}
