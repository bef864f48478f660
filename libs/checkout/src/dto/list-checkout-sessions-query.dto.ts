import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { NETWORK_NAMES } from '@app/chains';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import { SESSION_STATUSES, SessionStatus } from '../checkout-session.entity';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);

@ApiSchema({ name: 'ListCheckoutSessionsQuery' })
export class ListCheckoutSessionsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    description: 'Exact session id, pay address or transaction hash.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  @IsOptional()
  @IsString({ message: 'search_text must be a single string.' })
  @Length(1, 200, { message: 'search_text must be 1 to 200 characters.' })
  search_text?: string;

  @ApiPropertyOptional({
    enum: SESSION_STATUSES,
    isArray: true,
    description:
      'Only these statuses; repeat the parameter for several (`status=Paid&status=Underpaid`).',
    example: ['Paid'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(SESSION_STATUSES, {
    each: true,
    message: `status must be one of ${SESSION_STATUSES.join(', ')}.`,
  })
  status?: SessionStatus[];

  @ApiPropertyOptional({ enum: NETWORK_NAMES, example: 'TRON' })
  @IsOptional()
  @IsIn(NETWORK_NAMES, { message: `network must be one of ${NETWORK_NAMES.join(', ')}.` })
  network?: string;
}
