import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';

const ISO_OPTIONS = { strict: true, strictSeparator: true };

/** The created-at window every list of the API accepts (both bounds exclusive). */
export class CreatedRangeQueryDto {
  @ApiPropertyOptional({
    description: 'Only records created strictly after this instant (ISO 8601 with offset).',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601(ISO_OPTIONS, { message: 'created_after must be an ISO 8601 date-time.' })
  created_after?: string;

  @ApiPropertyOptional({
    description: 'Only records created strictly before this instant (ISO 8601 with offset).',
    example: '2026-12-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601(ISO_OPTIONS, { message: 'created_before must be an ISO 8601 date-time.' })
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
