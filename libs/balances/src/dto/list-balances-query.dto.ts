import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';

const toStrictBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

export class ListBalancesQueryDto {
  @ApiPropertyOptional({ enum: NETWORK_NAMES, example: 'TRON' })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;

  @ApiPropertyOptional({ enum: CURRENCIES, example: 'USDT' })
  @IsOptional()
  @IsIn(CURRENCIES, { message: `currency must be one of ${CURRENCIES.join(', ')}.` })
  currency?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description: "PSP accounts: also list each sub-merchant's balances. Without it only your own.",
    example: true,
  })
  @IsOptional()
  @Transform(toStrictBoolean)
  @IsBoolean({ message: 'include_sub_merchants must be true or false.' })
  include_sub_merchants?: boolean;

  @ApiPropertyOptional({
    description: "PSP accounts: only this sub-merchant's balances.",
    example: 'shop-042',
  })
  @IsOptional()
  @IsString({ message: 'sub_merchant_code must be a single string.' })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'sub_merchant_code must be a sub-merchant code.' })
  sub_merchant_code?: string;
}
