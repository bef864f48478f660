import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';

// Only the literal strings "true" and "false" are booleans; "1", "yes" or "" are refused.
const toStrictBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

/** The sub-merchant scope of every list (sessions, balances, payouts). */
@ApiSchema({ name: 'SubMerchantScopeQuery' })
export class SubMerchantScopeQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    description: "PSP accounts: also include sub-merchants' records. Without it only your own.",
    example: true,
  })
  @IsOptional()
  @Transform(toStrictBoolean)
  @IsBoolean({ message: 'include_sub_merchants must be true or false.' })
  include_sub_merchants?: boolean;

  @ApiPropertyOptional({
    description:
      "PSP accounts: only this sub-merchant's records (wins over include_sub_merchants). Unknown codes are a 400.",
    example: 'shop-042',
  })
  @IsOptional()
  @IsString({ message: 'sub_merchant_code must be a single string.' })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'sub_merchant_code must be a sub-merchant code.' })
  sub_merchant_code?: string;
}
