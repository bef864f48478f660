import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIsoDateTime } from '../http/is-iso-date-time.validator';

const DATE_TIME_FORMAT =
  'RFC 3339 date-time with seconds and an offset (`Z` or `±hh:mm`), e.g. `2026-11-01T00:00:00Z`';

/** The created-at window every list of the API accepts (both bounds exclusive). */
@ApiSchema({ name: 'CreatedRangeQuery' })
export class CreatedRangeQueryDto {
  @ApiPropertyOptional({
    description: `Only records created strictly after this instant: ${DATE_TIME_FORMAT}.`,
    format: 'date-time',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsIsoDateTime()
  created_after?: string;

  @ApiPropertyOptional({
    description: `Only records created strictly before this instant: ${DATE_TIME_FORMAT}.`,
    format: 'date-time',
    example: '2026-12-01T00:00:00+01:00',
  })
  @IsOptional()
  @IsIsoDateTime()
  created_before?: string;
}

/** The window as Dates for a repository filter. */
export function createdRange(query: CreatedRangeQueryDto): {
  createdAfter?: Date;
  createdBefore?: Date;
} {
  return {
    createdAfter: query.created_after ? new Date(query.created_after) : undefined,
    createdBefore: query.created_before ? new Date(query.created_before) : undefined,
  };
}
