import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { BALANCE_TRANSACTION_TYPES } from '../balance-transaction-types';

@ApiSchema({ name: 'BalanceTransaction' })
export class BalanceTransactionDto {
  @ApiProperty({ example: 'txn_3f9c2a7be41d4c0f9a8e5b6d7c1f2e3a' })
  id: string;

  @ApiProperty({
    enum: BALANCE_TRANSACTION_TYPES,
    description:
      '`payment`: a session confirmed (or topped up, or paid late); `payment_reversal`: a reorg ' +
      'took a confirmed payment back; `payout`: funds reserved for a payout when it was created; ' +
      '`payout_release`: a failed or rejected payout gave them back; `refund`: funds reserved ' +
      'for a refund; `refund_release`: a canceled refund gave them back (negative for an ' +
      "unmatched transfer's refund whose payout failed: its release credited money that was never " +
      'yours); `fee` and `adjustment`: any other posting (none today but operator corrections).',
    example: 'payment',
  })
  type: string;

  @ApiProperty({
    description:
      'Gross amount, signed: positive when the balance grew. For a payment, what the customer ' +
      'paid; `amount - fee = net`. Decimal string.',
    example: '100',
  })
  amount: string;

  @ApiProperty({ description: 'The service fee charged in it. Decimal string.', example: '1.5' })
  fee: string;

  @ApiProperty({
    description: 'How much the available balance changed by. Decimal string.',
    example: '98.5',
  })
  net: string;

  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    description:
      'The available balance of this currency, network and (sub-)merchant right after it. ' +
      'Decimal string.',
    example: '1250.75',
  })
  balance_after: string;

  @ApiProperty({
    description: 'What caused it: a checkout session (`cs_…`), payout (`po_…`) or refund (`re_…`).',
    example: 'cs_9Hq2LmX9cTz4Rb8VnK1pWd',
  })
  source_id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "Sub-merchant whose balance moved, or null for the account's own balance.",
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T01:02:03.456+00:00' })
  created_at: string;
}
