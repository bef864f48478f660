import { ApiPropertyOptional, ApiSchema, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';
import { SubMerchantScopeQueryDto } from '@app/sub-merchants';
import { EVENT_TYPES, EventType } from '../../event-types';

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);

@ApiSchema({ name: 'ListEventsQuery' })
export class ListEventsQueryDto extends IntersectionType(
  PaginationQueryDto,
  SubMerchantScopeQueryDto,
  CreatedRangeQueryDto,
) {
  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    isArray: true,
    description: 'Only these types; repeat the parameter for several.',
    example: ['checkout.session.paid'],
  })
  @IsOptional()
  @Transform(toArray)
  @IsIn(EVENT_TYPES, { each: true, message: `type must be one of ${EVENT_TYPES.join(', ')}.` })
  type?: EventType[];

  @ApiPropertyOptional({
    description: 'Only events about this object (a session, payout or webhook endpoint id).',
    example: 'cs_3Gf7Kq1NpW8xRt5Yb2VcM9',
  })
  @IsOptional()
  @IsString({ message: 'object_id must be a single string.' })
  @Length(1, 100, { message: 'object_id must be 1 to 100 characters.' })
  object_id?: string;
}
