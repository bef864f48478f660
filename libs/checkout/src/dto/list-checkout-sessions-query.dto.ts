import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsISO8601, IsOptional, IsString, Length, Matches } from 'class-validator';
import { NETWORK_NAMES } from '@app/chains';
import { PaginationQueryDto } from '@app/common';
import { SESSION_STATUSES, SessionStatus } from '../checkout-session.entity';

// Only the literal strings "true" and "false" are booleans; "1", "yes" or "" are refused.
const toStrictBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;
const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);
const ISO_OPTIONS = { strict: true, strictSeparator: true };

export class ListCheckoutSessionsQueryDto extends PaginationQueryDto {
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

  @ApiPropertyOptional({
    description: 'Only sessions created strictly after this instant (ISO 8601 with offset).',
    example: '2026-11-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601(ISO_OPTIONS, { message: 'created_after must be an ISO 8601 date-time.' })
  created_after?: string;

  @ApiPropertyOptional({
    description: 'Only sessions created strictly before this instant (ISO 8601 with offset).',
    example: '2026-12-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601(ISO_OPTIONS, { message: 'created_before must be an ISO 8601 date-time.' })
  created_before?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      "PSP accounts: also list sub-merchants' sessions. Without it only your own are listed.",
    example: true,
  })
  @IsOptional()
  @Transform(toStrictBoolean)
  @IsBoolean({ message: 'include_sub_merchants must be true or false.' })
  include_sub_merchants?: boolean;

  @ApiPropertyOptional({
    description: "PSP accounts: only this sub-merchant's sessions. Unknown codes are a 400.",
    example: 'shop-042',
  })
  @IsOptional()
  @IsString({ message: 'sub_merchant_code must be a single string.' })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'sub_merchant_code must be a sub-merchant code.' })
  sub_merchant_code?: string;
}
