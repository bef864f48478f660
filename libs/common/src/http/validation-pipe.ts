import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';

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
  if (constraints.whitelistValidation) {
    return new ApiException(ErrorCode.ParameterInvalid, `Unknown parameter: ${param}.`, param);
  }
  // Optional fields skip validation when absent, so an absent value here is a required one.
  if (error.value === undefined) return ApiException.missing(param);
  const message = Object.values(constraints)[0] ?? `${param} is invalid.`;
  return new ApiException(ErrorCode.ParameterInvalid, message, param);
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: true },
    exceptionFactory: toValidationException,
  });
}
