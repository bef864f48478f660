import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { IsDecimalAmount } from '@app/common';

export const REFUND_REASON_MAX_LENGTH = 500;

@ApiSchema({ name: 'CreateRefundRequest' })
export class CreateRefundDto {
  @ApiPropertyOptional({
    description:
      'Amount to refund, a decimal string. At most what was received and not refunded yet, and ' +
      'above twice the network fee (422 `amount_above_refundable`, `amount_too_small`). Without ' +
      'it: the whole of an `Expired` or `Underpaid` session, the excess of an overpaid `Paid` ' +
      'one; a `Paid` session without excess needs it. For an unmatched transfer: its whole ' +
      'amount, and nothing else.',
    example: '20.5',
    pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,18})?$',
  })
  @IsOptional()
  @IsDecimalAmount({ maxIntegerDigits: 12, maxFractionDigits: 18 })
  amount?: string;

  @ApiPropertyOptional({
    description:
      "The customer's address on the payment's network: `0x` + 40 hex on EVM networks (a mixed-case " +
      'address must carry a valid EIP-55 checksum), base58check `T...` on TRON; the same checks ' +
      'as a payout (400 `invalid_address`). Without it the refund waits in ' +
      '`requires_destination` and the hosted page asks the customer for it (required for an ' +
      'unmatched transfer, which has no page). Never the sender ' +
      'of the payment by default: exchanges pay from shared wallets.',
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  @IsOptional()
  @IsString({ message: 'to_address must be an address string.' })
  @Length(1, 100, { message: 'to_address must be an address string.' })
  to_address?: string;

  @ApiPropertyOptional({
    description: `Why, for your records, up to ${REFUND_REASON_MAX_LENGTH} characters.`,
    example: 'Order canceled',
    maxLength: REFUND_REASON_MAX_LENGTH,
  })
  @IsOptional()
  @IsString({ message: 'reason must be a string.' })
  @MaxLength(REFUND_REASON_MAX_LENGTH, {
    message: `reason must be at most ${REFUND_REASON_MAX_LENGTH} characters.`,
  })
  reason?: string;
}
