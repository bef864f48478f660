import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import { REFUND_STATUSES, RefundStatus } from '../refund.types';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);

@ApiSchema({ name: 'ListRefundsQuery' })
export class ListRefundsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    description: "Only this session's refunds.",
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  @IsOptional()
  @Matches(/^cs_[0-9A-Za-z]{22}$/, { message: 'session_id must be a session id (cs_...).' })
  session_id?: string;

  @ApiPropertyOptional({
    enum: REFUND_STATUSES,
    isArray: true,
    description: 'Only these statuses; repeat the parameter for several.',
    example: ['requires_destination'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(REFUND_STATUSES, {
    each: true,
    message: `status must be one of ${REFUND_STATUSES.join(', ')}.`,
  })
  status?: RefundStatus[];
}
