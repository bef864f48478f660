import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import { MAX_INPUT_DEPTH } from './storable-input';

function firstLeaf(
  error: ValidationError,
  path: string[] = [],
): { error: ValidationError; path: string[] } {
  const here = [...path, error.property];
  if (error.constraints || !error.children?.length) return { error, path: here };
  return firstLeaf(error.children[0], here);
}

/** Turns the first class-validator failure into a 400 that names the offending field. */
export function toValidationException(errors: ValidationError[]): ApiException {
  const { error, path } = firstLeaf(errors[0]);
  const param = path.join('.');
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) return unknownParameter(param);
  // Optional fields skip validation when absent, so an absent value here is a required one.
  if (error.value === undefined) return ApiException.missing(param);
  const message = Object.values(constraints)[0] ?? `${param} is invalid.`;
  return new ApiException(ErrorCode.ParameterInvalid, message, param);
}

function unknownParameter(param: string): ApiException {
  return new ApiException(ErrorCode.ParameterInvalid, `Unknown parameter: ${param}.`, param);
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The path of the first key of `value` (nested ones included) that Nest would silently drop. */
function findReservedKey(value: unknown, path: string[] = []): string[] | null {
  // Deeper input never reaches a pipe: RequestInputGuard refuses it first.
  if (value === null || typeof value !== 'object' || path.length >= MAX_INPUT_DEPTH) return null;
  for (const [key, item] of Object.entries(value)) {
    if (RESERVED_KEYS.has(key)) return [...path, key];
    const found = findReservedKey(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * Nest's ValidationPipe deletes `__proto__`, `constructor` and `prototype` keys (against prototype
 * pollution) before validating, so `forbidNonWhitelisted` never saw them and `?__proto__=1` was
 * silently ignored where `?foo=1` is a 400. They are refused the same way instead. No DTO has a
 * field of these names, so at the top level they are unknown parameters; deeper (a metadata key)
 * they are names the API cannot take.
 */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if ((metadata.type === 'query' || metadata.type === 'body') && this.toValidate(metadata)) {
      const path = findReservedKey(value, metadata.data ? [metadata.data] : []);
      if (path?.length === 1) throw unknownParameter(path[0]);
      if (path) {
        const param = path.join('.');
        throw ApiException.invalid(
          param,
          `${param} is not allowed: __proto__, constructor and prototype are reserved names.`,
        );
      }
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: true },
    exceptionFactory: toValidationException,
  });
}
