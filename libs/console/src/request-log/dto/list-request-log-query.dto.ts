import { IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { CreatedRangeQueryDto, PaginationQueryDto } from '@app/common';

export const LOGGED_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

const toArray = ({ value }: { value: unknown }) => (Array.isArray(value) ? value : [value]);
// Only plain three-digit strings become numbers, as the pagination parameters do.
const toStatuses = ({ value }: { value: unknown }) =>
  toArray({ value }).map((item: unknown) =>
    typeof item === 'string' && /^[0-9]{3}$/.test(item) ? Number(item) : item,
  );
const STATUS_MESSAGE = 'status must be an HTTP status code from 100 to 599.';

/** `GET /console/api/request-log`: the pagination of every list, and two filters. */
export class ListRequestLogQueryDto extends IntersectionType(
  PaginationQueryDto,
  CreatedRangeQueryDto,
) {
  /** Only these statuses; repeat the parameter for several (`status=500&status=502`). */
  @IsOptional()
  @Transform(toStatuses)
  @IsInt({ each: true, message: STATUS_MESSAGE })
  @Min(100, { each: true, message: STATUS_MESSAGE })
  @Max(599, { each: true, message: STATUS_MESSAGE })
  status?: number[];

  /** Only these methods; repeat the parameter for several. */
  @IsOptional()
  @Transform(toArray)
  @IsIn(LOGGED_METHODS, {
    each: true,
    message: `method must be one of ${LOGGED_METHODS.join(', ')}.`,
  })
  method?: string[];
}
