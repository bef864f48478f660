import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ApiException } from '../errors/api.exception';
import { TOTAL_COUNT_CAP } from './total-count-cap';

const TOTAL_COUNT_CAP_TEXT = TOTAL_COUNT_CAP.toLocaleString('en-US');

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/**
 * The deepest row `page` may reach. An offset is read and thrown away row by row, so a page
 * 50,000 rows down costs 2,500 first pages; `starting_after` reaches any depth at first-page cost.
 */
export const MAX_OFFSET_ROWS = 10_000;

// Only plain digit strings become numbers; anything else stays a string so @IsInt rejects it
// with a clear message instead of "1e2" or " 3" silently parsing.
const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;

// Only the literal strings "true" and "false" are booleans; "1", "yes" or "" are refused.
const toStrictBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

@ApiSchema({ name: 'PaginationQuery' })
export class PaginationQueryDto {
  @ApiPropertyOptional({
    description: 'Page number. 0 and 1 both mean the first page.',
    type: 'integer',
    format: 'int64',
    minimum: 0,
    default: 1,
    example: 1,
  })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt({ message: 'page must be a whole number of 0 or more.' })
  @Min(0, { message: 'page must be a whole number of 0 or more.' })
  page?: number;

  @ApiPropertyOptional({
    description: `Items per page. 0 means the default (${DEFAULT_PAGE_SIZE}); at most ${MAX_PAGE_SIZE}.`,
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    example: 20,
  })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt({ message: `page_size must be a whole number from 0 to ${MAX_PAGE_SIZE}.` })
  @Min(0, { message: `page_size must be a whole number from 0 to ${MAX_PAGE_SIZE}.` })
  @Max(MAX_PAGE_SIZE, { message: `page_size must be a whole number from 0 to ${MAX_PAGE_SIZE}.` })
  page_size?: number;

  @ApiPropertyOptional({
    description:
      'Cursor: the id of the last item you have (sub-merchants: its code). Returns the items ' +
      'after it, newest first, at the cost of a first page at any depth; the `Link` header ' +
      'carries the next cursor. Not combinable with `page` above 1.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  @IsOptional()
  @IsString({ message: 'starting_after must be a single string.' })
  @Length(1, 100, { message: 'starting_after must be 1 to 100 characters.' })
  starting_after?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      `Count every match for \`X-Total-Count\`. Without it lists count at most ` +
      `${TOTAL_COUNT_CAP_TEXT} matches and send \`X-Total-Count-At-Least\` beyond; an exact ` +
      'count of a large list costs time proportional to its size.',
    example: true,
  })
  @IsOptional()
  @Transform(toStrictBoolean)
  @IsBoolean({ message: 'include_total must be true or false.' })
  include_total?: boolean;
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
  /** Keyset pagination: the id (or code) of the last item of the previous page. */
  startingAfter?: string;
  /** Count every match exactly instead of up to the cap. */
  includeTotal: boolean;
}

export function toPageRequest(query: PaginationQueryDto): PageRequest {
  const page = Math.max(query.page ?? 1, 1);
  const pageSize = query.page_size || DEFAULT_PAGE_SIZE;
  const offset = (page - 1) * pageSize;
  if (query.starting_after !== undefined && page > 1) {
    throw ApiException.invalid('page', 'page cannot be combined with starting_after.');
  }
  if (offset + pageSize > MAX_OFFSET_ROWS) {
    throw ApiException.invalid(
      'page',
      `page reaches past row ${MAX_OFFSET_ROWS}; follow the Link header's next page or pass ` +
        'starting_after to go deeper.',
    );
  }
  return {
    page,
    pageSize,
    offset,
    startingAfter: query.starting_after,
    includeTotal: query.include_total === true,
  };
}
