import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { NETWORK_NAMES } from '@app/chains';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import {
  UNMATCHED_REASONS,
  UNMATCHED_STATUSES,
  UnmatchedReason,
  UnmatchedStatus,
} from '../unmatched-transfer';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);
// unknown_address transfers have no merchant: never a filter a merchant can use.
const MERCHANT_REASONS = UNMATCHED_REASONS.filter((reason) => reason !== 'unknown_address');

@ApiSchema({ name: 'ListUnmatchedTransfersQuery' })
export class ListUnmatchedTransfersQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    enum: MERCHANT_REASONS,
    isArray: true,
    description:
      'Only these reasons; repeat the parameter for several (`reason=wrong_network&reason=wrong_token`).',
    example: ['wrong_network'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(MERCHANT_REASONS, {
    each: true,
    message: `reason must be one of ${MERCHANT_REASONS.join(', ')}.`,
  })
  reason?: UnmatchedReason[];

  @ApiPropertyOptional({
    enum: UNMATCHED_STATUSES,
    isArray: true,
    description: 'Only these statuses; repeat the parameter for several.',
    example: ['detected'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(UNMATCHED_STATUSES, {
    each: true,
    message: `status must be one of ${UNMATCHED_STATUSES.join(', ')}.`,
  })
  status?: UnmatchedStatus[];

  @ApiPropertyOptional({
    enum: NETWORK_NAMES,
    description: 'Only transfers made on this network.',
    example: 'BSC',
  })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;

  @ApiPropertyOptional({
    description: 'Only transfers to the pay address of this checkout session.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  @IsOptional()
  @IsString({ message: 'session_id must be a single string.' })
  @Matches(/^cs_[A-Za-z0-9]{1,64}$/, { message: 'session_id must be a checkout session id.' })
  session_id?: string;
}
