import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { NETWORK_NAMES } from '@app/chains';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import { PAYOUT_STATUSES, PayoutStatus } from '../payout.types';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);

@ApiSchema({ name: 'ListPayoutsQuery' })
export class ListPayoutsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    description: 'Exact payout id, transaction hash or destination address (case-insensitive).',
    example: 'po_7Hq2LmX9cTz4Rb8VnK1pWd',
  })
  @IsOptional()
  @IsString({ message: 'search_text must be a single string.' })
  @Length(1, 200, { message: 'search_text must be 1 to 200 characters.' })
  search_text?: string;

  @ApiPropertyOptional({
    enum: PAYOUT_STATUSES,
    isArray: true,
    description:
      'Only these statuses; repeat the parameter for several (`status=Pending&status=Processing`).',
    example: ['Completed'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(PAYOUT_STATUSES, {
    each: true,
    message: `status must be one of ${PAYOUT_STATUSES.join(', ')}.`,
  })
  status?: PayoutStatus[];

  @ApiPropertyOptional({
    description: 'Only the payouts of this batch (`POST /v1/payout-batches`).',
    example: 'pob_4Fh8KwZ2mQx7Lc1RvT9nJe',
  })
  @IsOptional()
  @IsString({ message: 'batch_id must be a single string.' })
  @Length(1, 100, { message: 'batch_id must be 1 to 100 characters.' })
  batch_id?: string;

  @ApiPropertyOptional({ enum: NETWORK_NAMES, example: 'TRON' })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;
}
