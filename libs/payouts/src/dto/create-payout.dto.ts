import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { CURRENCIES, Currency, NETWORK_NAMES, NetworkName } from '@app/chains';
import { IsDecimalAmount } from '@app/common';

export const PAYOUT_DESCRIPTION_MAX_LENGTH = 500;
export const PAYOUT_METADATA_MAX_LENGTH = 4096;

@ApiSchema({ name: 'CreatePayoutRequest' })
export class CreatePayoutDto {
  @ApiProperty({
    description:
      'Amount to debit from your balance, as a decimal string with at most 6 fractional digits. ' +
      'The recipient receives `amount - fee`. Bounds per payout are set by the operator ' +
      '(default 1 to 1000000).',
    example: '250.00',
    pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$',
  })
  @IsDecimalAmount({ maxIntegerDigits: 12, maxFractionDigits: 6 })
  amount: string;

  @ApiProperty({ enum: CURRENCIES, description: 'Stablecoin to send.', example: 'USDT' })
  @IsIn(CURRENCIES, { message: `currency must be one of ${CURRENCIES.join(', ')}.` })
  currency: Currency;

  @ApiProperty({
    enum: NETWORK_NAMES,
    description:
      'Network to send on; the funds come from your balance on this network and currency. ' +
      'An unsupported pair is a 422 `unsupported_network_currency`.',
    example: 'TRON',
  })
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network: NetworkName;

  @ApiProperty({
    description:
      "Recipient address in the network's own format: `0x` + 40 hex on EVM networks (a mixed-case " +
      'address must carry a valid EIP-55 checksum), base58check `T...` on TRON. The zero address, ' +
      "token contracts and the service's own addresses are refused (400 `invalid_address`).",
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  @IsString({ message: 'to_address must be an address string.' })
  @Length(1, 100, { message: 'to_address must be an address string.' })
  to_address: string;

  @ApiPropertyOptional({
    description: `Free text for your records, up to ${PAYOUT_DESCRIPTION_MAX_LENGTH} characters.`,
    example: 'Withdrawal #8812',
    maxLength: PAYOUT_DESCRIPTION_MAX_LENGTH,
  })
  @IsOptional()
  @IsString({ message: 'description must be a string.' })
  @MaxLength(PAYOUT_DESCRIPTION_MAX_LENGTH, {
    message: `description must be at most ${PAYOUT_DESCRIPTION_MAX_LENGTH} characters.`,
  })
  description?: string;

  @ApiPropertyOptional({
    description:
      `Your own data, stored and returned as given: a string of up to ${PAYOUT_METADATA_MAX_LENGTH} ` +
      'characters (for example JSON you encode yourself).',
    example: '{"user_id":"u_1842"}',
    maxLength: PAYOUT_METADATA_MAX_LENGTH,
  })
  @IsOptional()
  @IsString({ message: 'metadata must be a string (encode structured data yourself).' })
  @MaxLength(PAYOUT_METADATA_MAX_LENGTH, {
    message: `metadata must be at most ${PAYOUT_METADATA_MAX_LENGTH} characters.`,
  })
  metadata?: string;
}
