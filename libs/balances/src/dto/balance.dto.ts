import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';

@ApiSchema({ name: 'Balance' })
export class BalanceDto {
  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "Sub-merchant this balance belongs to, or null for the account's own balance.",
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({
    description:
      'Confirmed payments net of fees, less payouts: what can be paid out. Decimal string.',
    example: '1250.75',
  })
  available: string;

  @ApiProperty({
    description:
      'Reserved for payouts that are not finished yet (`Pending` or `Processing`). A completed ' +
      'payout takes it out for good; a failed or rejected one gives it back to `available`.',
    example: '100',
  })
  held: string;
}
