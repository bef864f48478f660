import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';

@ApiSchema({ name: 'ListBalancesQuery' })
export class ListBalancesQueryDto extends SubMerchantScopeQueryDto {
  @ApiPropertyOptional({ enum: NETWORK_NAMES, example: 'TRON' })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;

  @ApiPropertyOptional({ enum: CURRENCIES, example: 'USDT' })
  @IsOptional()
  @IsIn(CURRENCIES, { message: `currency must be one of ${CURRENCIES.join(', ')}.` })
  currency?: string;
}
