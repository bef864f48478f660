import type { ArgumentMetadata } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { ApiException } from '../errors/api.exception';
import { createValidationPipe } from './validation-pipe';

class SearchQuery {
  @IsOptional()
  @IsString()
  search_text?: string;
}

class NoteBody {
  @IsOptional()
  metadata?: Record<string, string>;
}

const query: ArgumentMetadata = { type: 'query', metatype: SearchQuery };
const body: ArgumentMetadata = { type: 'body', metatype: NoteBody };

/** The query string parser's object: no prototype, so `__proto__` is an ordinary own key. */
const parsedQuery = (entries: Record<string, string>) =>
  Object.assign(Object.create(null) as object, entries);

async function refusal(value: unknown, metadata: ArgumentMetadata) {
  const error = await createValidationPipe()
    .transform(value, metadata)
    .then(() => null)
    .catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApiException);
  const { code, message, param } = error as ApiException;
  return { code, message, param };
}

describe('createValidationPipe', () => {
  it.each(['foo', '__proto__', 'constructor', 'prototype'])(
    'refuses the unknown query parameter %s the same way',
    async (name) => {
      expect(await refusal(parsedQuery({ search_text: 'a', [name]: '1' }), query)).toEqual({
        code: 'parameter_invalid',
        message: `Unknown parameter: ${name}.`,
        param: name,
      });
    },
  );

  it('refuses those names in a JSON body, at the top and nested, naming where', async () => {
    expect(await refusal(JSON.parse('{"__proto__": {"admin": true}}'), body)).toMatchObject({
      param: '__proto__',
    });
    expect(await refusal({ metadata: { constructor: 'x' } }, body)).toEqual({
      code: 'parameter_invalid',
      message:
        'metadata.constructor is not allowed: __proto__, constructor and prototype are reserved names.',
      param: 'metadata.constructor',
    });
  });

  it('still passes what it validates', async () => {
    await expect(
      createValidationPipe().transform(parsedQuery({ search_text: 'shop' }), query),
    ).resolves.toEqual({ search_text: 'shop' });
    await expect(
      createValidationPipe().transform('constructor', { type: 'query', data: 'search_text' }),
    ).resolves.toBe('constructor');
  });
});
