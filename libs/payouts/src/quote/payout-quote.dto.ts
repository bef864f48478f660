import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { REVIEW_REASONS, ReviewReason } from '../payout.types';

@ApiSchema({ name: 'PayoutQuoteDestination' })
export class PayoutQuoteDestinationDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The address in canonical form (checksummed on EVM); null when it is not one.',
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  address: string | null;

  @ApiProperty({
    description:
      'Whether a payout to it would be accepted. When false, creating the payout answers 400 ' +
      '`invalid_address` with the message in `refusal`.',
    example: true,
  })
  valid: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the address would be refused, null when `valid`.',
    example: null,
  })
  refusal: string | null;

  @ApiProperty({
    description:
      "The address has the network's format and its checksum is right (base58check on TRON, " +
      'EIP-55 for a mixed-case EVM address; an all-lower-case EVM address has none to check).',
    example: true,
  })
  checksum_ok: boolean;

  @ApiProperty({
    description:
      "The address is one of the network's token contracts (no chain call is made: another " +
      'contract is not detected).',
    example: false,
  })
  is_contract: boolean;

  @ApiProperty({
    description: 'None of your payouts to it on this network has completed yet.',
    example: true,
  })
  first_payout_to_it: boolean;
}

@ApiSchema({ name: 'PayoutQuote' })
export class PayoutQuoteDto {
  @ApiProperty({ description: 'Amount debited from your balance.', example: '250' })
  amount: string;

  @ApiProperty({
    description: 'Service fee the payout would be created with: network fee plus your percent.',
    example: '2.25',
  })
  fee: string;

  @ApiProperty({
    description: '`amount - fee`: what the recipient would receive.',
    example: '247.75',
  })
  net_amount: string;

  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    description: 'The payout would wait for an operator review (`pending_reason` review_*).',
    example: true,
  })
  review_required: boolean;

  @ApiProperty({
    enum: REVIEW_REASONS,
    isArray: true,
    description:
      'Every reason it would be reviewed for; the payout is created with the first one ' +
      '(`pending_reason` `review_<reason>`).',
    example: ['new_destination'],
  })
  review_reasons: ReviewReason[];

  @ApiProperty({ type: PayoutQuoteDestinationDto })
  destination: PayoutQuoteDestinationDto;

  @ApiProperty({
    description:
      'Available balance (on this network and currency, of the sub-merchant when named) minus ' +
      '`amount`, as of now. Negative: creating the payout would answer 422 `insufficient_balance`.',
    example: '750',
  })
  balance_after: string;
}
