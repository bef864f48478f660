import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { REFUND_STATUSES, RefundStatus } from '../refund.types';

const TIMESTAMP = 'ISO 8601 with a numeric UTC offset';

@ApiSchema({ name: 'Refund' })
export class RefundDto {
  @ApiProperty({
    description: 'Refund id, `re_` + 22 characters.',
    example: 're_4Fq9LmX2cTz7Rb8VnK1pWe',
  })
  id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The refunded session; null for a refund of an unmatched transfer.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  session_id: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The refunded unmatched transfer; null for a refund of a session.',
    example: null,
  })
  unmatched_transfer_id: string | null;

  @ApiProperty({
    enum: REFUND_STATUSES,
    description:
      '`requires_destination`: waiting for the customer to enter an address on the hosted page. ' +
      '`Pending`: the address is known, the amount held, not sent yet. `Processing`: signed and ' +
      'broadcast (`tx_hash`). `Completed`: confirmed on chain. `Failed`: the chain refused it or ' +
      'an operator rejected it (`error_reason`); the amount is back where it came from. ' +
      '`Canceled`: canceled by you before it was sent; the amount is back.',
    example: 'Pending',
  })
  status: RefundStatus;

  @ApiProperty({ description: 'false in the sandbox, true in production.', example: false })
  livemode: boolean;

  @ApiProperty({
    description: 'Amount refunded, taken from your balance (or from the unmatched transfer).',
    example: '20.5',
  })
  amount: string;

  @ApiProperty({
    description: "The network's fee for sending it, deducted from `amount`.",
    example: '1',
  })
  fee: string;

  @ApiProperty({
    description: '`amount - fee`: exactly what the customer receives.',
    example: '19.5',
  })
  net_amount: string;

  @ApiProperty({ enum: CURRENCIES, description: "The payment's token.", example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, description: "The payment's network.", example: 'TRON' })
  network: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where it is sent (checksummed on EVM networks); null until the customer says.',
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  to_address: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The link to give the customer while the refund is `requires_destination` (null otherwise, ' +
      'and in events): the checkout page with this refund and its secret in the URL fragment. ' +
      'Only this link shows the refund form; the checkout link alone does not. Treat it as a ' +
      'secret: whoever holds it chooses where the refund goes. So it is given only to callers ' +
      'holding `refunds:write` (a full secret key, a restricted key with that scope, a console ' +
      'owner or admin); it is null for any other caller (a `refunds:read` key, a console viewer ' +
      'or support member) and for an operator viewing as the merchant. Read it again at any time ' +
      'with `GET /v1/refunds/{id}`; a replayed creation answers it from the refund as it stands ' +
      'now. Answers that can carry it are sent with `Cache-Control: no-store`.',
    example:
      'https://pay.example.com/checkout/cs_3kTMd9Q2xLp8RvB1nY7cZa#refund=re_4Fq9LmX2cTz7Rb8VnK1pWe&secret=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5',
  })
  destination_url: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      `When an address the customer gave on the checkout page may be sent, ${TIMESTAMP}: ` +
      'until then nothing is signed and you can still cancel the refund ' +
      '(`POST /v1/refunds/{id}/cancel`). Null when the address is yours (given at creation) ' +
      'or not given yet.',
    example: null,
  })
  send_after: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Hash of the transaction that sends it, once signed.',
    example: null,
  })
  tx_hash: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Your reason, as given.',
    example: 'Order canceled',
  })
  reason: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why it failed (`Failed` only).',
    example: null,
  })
  error_reason: string | null;

  @ApiProperty({
    description: `Creation time, ${TIMESTAMP}.`,
    example: '2026-11-27T14:05:09.120+00:00',
  })
  created_at: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Confirmation time on chain, ${TIMESTAMP}; null until \`Completed\`.`,
    example: null,
  })
  completed_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The sub-merchant whose balance it comes from, if any.',
    example: null,
  })
  sub_merchant_code: string | null;
}
