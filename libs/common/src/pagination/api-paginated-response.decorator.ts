import { applyDecorators, Type } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';

/** A bare-array list response with the headers that carry what the array cannot. */
export function ApiPaginatedResponse(item: Type<unknown>, noun: string) {
  return applyDecorators(
    ApiOkResponse({
      type: [item],
      headers: {
        'X-Total-Count': {
          description: `${noun} matching the filters.`,
          schema: { type: 'integer' },
        },
        Link: {
          description: 'RFC 8288 links to the first, prev, next and last pages.',
          schema: { type: 'string' },
        },
      },
    }),
  );
}
