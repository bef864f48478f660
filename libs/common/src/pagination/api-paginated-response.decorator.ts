import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import { TOTAL_COUNT_CAP } from './total-count-cap';
import { MAX_OFFSET_ROWS } from './pagination-query.dto';

const CAP = TOTAL_COUNT_CAP.toLocaleString('en-US');

/**
 * A bare-array list response with the headers that carry what the array cannot. `csvExample`:
 * the list also answers `Accept: text/csv`, documented as text (a generated client then reads a
 * string, not an array of objects).
 */
export function ApiPaginatedResponse(item: Type<unknown>, noun: string, csvExample?: string) {
  const body = csvExample
    ? {
        content: {
          'application/json': {
            schema: { type: 'array' as const, items: { $ref: getSchemaPath(item) } },
          },
          'text/csv': { schema: { type: 'string' as const }, example: csvExample },
        },
      }
    : { type: [item] as [Type<unknown>] };
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      ...body,
      headers: {
        'X-Total-Count': {
          description:
            `${noun} matching the filters, exactly. Sent when at most ${CAP} match, or always ` +
            'with `include_total=true`.',
          schema: { type: 'integer' },
        },
        'X-Total-Count-At-Least': {
          description:
            `Sent instead of \`X-Total-Count\` when more than ${CAP} match and \`include_total\` ` +
            `was not set: the value is ${TOTAL_COUNT_CAP + 1}.`,
          schema: { type: 'integer' },
        },
        Link: {
          description:
            'RFC 8288 links: `first`; `prev` and `last` on lists paged by number (`last` only ' +
            'when the total is exact); `next` when there is a next page, by `page` while it is ' +
            `within the first ${MAX_OFFSET_ROWS.toLocaleString('en-US')} rows, by ` +
            '`starting_after` after that and on cursor pages.',
          schema: { type: 'string' },
        },
      },
    }),
  );
}
