import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

// Only plain digit strings become numbers; anything else stays a string so @IsInt rejects it
// with a clear message instead of "1e2" or " 3" silently parsing.
const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;

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
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export function toPageRequest(query: PaginationQueryDto): PageRequest {
  const page = Math.max(query.page ?? 1, 1);
  const pageSize = query.page_size || DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}
