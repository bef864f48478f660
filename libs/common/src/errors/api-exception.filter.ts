import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiException } from './api.exception';
import { ERROR_CODE_SPECS, ErrorCode } from './error-code';
import { requestIdOf } from '../http/request-id';
import { isDatabaseUnavailable } from './database-unavailable';
import { isStatementCancelled } from './statement-cancelled';

/**
 * Turns every error into the one envelope `{ error: { type, code, message, param?, request_id } }`.
 * Nothing unexpected leaks: unknown errors become a 500 `api_error` and are logged with their stack.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const apiException = this.toApiException(exception, request);
    if (apiException.code === ErrorCode.ApiError) {
      this.logger.error({ err: exception, path: request.path }, 'Unhandled error');
    } else if (isStatementCancelled(exception)) {
      // Not a bug, but a request the database could not answer in time: worth an index or a
      // narrower default, so the operator sees which.
      this.logger.warn({ path: request.path }, 'Database statement cancelled (statement timeout)');
    }
    const spec = ERROR_CODE_SPECS[apiException.code];
    for (const [name, value] of Object.entries(apiException.headers))
      response.setHeader(name, value);
    response.status(spec.status).json({
      error: {
        type: spec.type,
        code: apiException.code,
        message: apiException.message,
        ...(apiException.param ? { param: apiException.param } : {}),
        ...(apiException.errors ? { errors: apiException.errors } : {}),
        request_id: requestIdOf(request),
      },
    });
  }

  private toApiException(exception: unknown, request: Request): ApiException {
    if (exception instanceof ApiException) return exception;
    if (exception instanceof HttpException) return this.fromHttpException(exception, request);
    // An outage, not a bug: the client should retry (and the process recovers by itself).
    if (isDatabaseUnavailable(exception)) return serviceUnavailable();
    if (isStatementCancelled(exception)) {
      return serviceUnavailable(
        'The request took too long in the database and was cancelled. Retry later; a narrower ' +
          'request (more filters, a shorter created range, no include_total) is faster.',
      );
    }
    return new ApiException(ErrorCode.ApiError, 'An internal error occurred. Retry later.');
  }

  private fromHttpException(exception: HttpException, request: Request): ApiException {
    switch (exception.getStatus()) {
      case 404:
        return new ApiException(
          ErrorCode.RouteNotFound,
          `No route ${request.method} ${request.path}. See /docs for the API reference.`,
        );
      case 429:
        return new ApiException(ErrorCode.RateLimited, 'Too many requests. Retry later.');
      case 413:
        return new ApiException(ErrorCode.RequestTooLarge, 'The request body is too large.');
      case 503:
        return serviceUnavailable();
      default:
        if (exception.getStatus() < 500) {
          return new ApiException(ErrorCode.ParameterInvalid, exception.message);
        }
        return new ApiException(ErrorCode.ApiError, 'An internal error occurred. Retry later.');
    }
  }
}

const RETRY_AFTER_SECONDS = '5';

function serviceUnavailable(
  message = 'The service is temporarily unavailable. Retry later.',
): ApiException {
  return new ApiException(ErrorCode.ServiceUnavailable, message, undefined, {
    'Retry-After': RETRY_AFTER_SECONDS,
  });
}
