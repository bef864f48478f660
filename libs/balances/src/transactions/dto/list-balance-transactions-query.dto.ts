import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import { BALANCE_TRANSACTION_TYPES, BalanceTransactionType } from '../balance-transaction-types';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);

@ApiSchema({ name: 'ListBalanceTransactionsQuery' })
export class ListBalanceTransactionsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    enum: BALANCE_TRANSACTION_TYPES,
    isArray: true,
    description: 'Only these types; repeat the parameter for several (`type=payout&type=refund`).',
    example: ['payment'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(BALANCE_TRANSACTION_TYPES, {
    each: true,
    message: `type must be one of ${BALANCE_TRANSACTION_TYPES.join(', ')}.`,
  })
  type?: BalanceTransactionType[];

  @ApiPropertyOptional({ enum: CURRENCIES, example: 'USDT' })
  @IsOptional()
  @IsIn(CURRENCIES, { message: `currency must be one of ${CURRENCIES.join(', ')}.` })
  currency?: string;

  @ApiPropertyOptional({ enum: NETWORK_NAMES, example: 'TRON' })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;
}
