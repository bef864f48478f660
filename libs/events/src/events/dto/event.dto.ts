import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES, EventType } from '../../event-types';

@ApiSchema({ name: 'EventTransaction' })
export class EventTransactionDto {
  @ApiProperty({ example: '10' })
  amount: string;

  @ApiProperty({ example: '2026-11-23T10:15:20.000Z' })
  created_at: string;

  @ApiProperty({ example: 'ETHEREUM' })
  network: string;

  @ApiProperty({ enum: ['Pending', 'Confirmed', 'Reverted'], example: 'Confirmed' })
  status: string;

  @ApiProperty({ example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060' })
  tx_hash: string;

  @ApiProperty({ description: 'Position of the transfer in its transaction.', example: 0 })
  log_index: number;
}

@ApiSchema({ name: 'EventData' })
export class EventDataDto {
  // Referenced by schema name: the checkout and payouts libraries depend on this one, not back.
  @ApiProperty({
    oneOf: [
      { $ref: '#/components/schemas/CheckoutSession' },
      { $ref: '#/components/schemas/Payout' },
      { $ref: '#/components/schemas/PayoutBatch' },
      { $ref: '#/components/schemas/Refund' },
      { $ref: '#/components/schemas/WebhookEndpoint' },
    ],
    description:
      'The object the event is about, exactly as the API returns it at the moment of the change: a ' +
      'checkout session (`checkout.session.*`), a payout (`payout.*`), a payout batch ' +
      '(`payout_batch.*`), a refund (`refund.*`) or a webhook endpoint (`webhook_endpoint.*`, ' +
      'without its secret).',
  })
  object: object;

  @ApiPropertyOptional({
    type: () => EventTransactionDto,
    description:
      'On `checkout.session.payment_detected`, `payment_confirmed` and `transaction_reverted`: the ' +
      'transfer that changed (`amount`, `created_at`, `network`, `status`, `tx_hash`, `log_index`).',
  })
  transaction?: EventTransactionDto;

  @ApiPropertyOptional({
    description:
      'On `webhook_endpoint.test` only, always true: the event was sent by ' +
      '`POST /v1/webhook-endpoints/{id}/test` and reports no change.',
    example: true,
  })
  test?: boolean;
}

@ApiSchema({ name: 'Event' })
export class EventDto {
  @ApiProperty({ example: 'evt_5Jd8Qm2LxW9cTz4Rb8VnK1' })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'checkout.session.paid' })
  type: EventType;

  @ApiProperty({
    description: 'When the change committed (ISO 8601, UTC).',
    example: '2026-11-23T10:15:30.123Z',
  })
  created_at: string;

  @ApiProperty({ description: 'false for sandbox events.', example: false })
  livemode: boolean;

  @ApiProperty({
    description:
      "1, 2, 3... per object (`data.object.id`), in the order of the object's changes. Deliveries " +
      'can arrive out of order: keep the highest sequence you applied per object and ignore lower ones.',
    example: 3,
  })
  sequence: number;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The status before this change: of the session, payout or refund for status events, of the ' +
      'transfer (`data.transaction`) for `payment_*`/`transaction_reverted` events; null for a ' +
      'new object.',
    example: 'Pending',
  })
  previous_status: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The sub-merchant the object belongs to (PSP accounts), else null.',
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({ type: EventDataDto })
  data: EventDataDto;
}
