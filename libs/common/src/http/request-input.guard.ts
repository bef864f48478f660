import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import { findInputProblem, InputProblem } from './storable-input';

/** The request headers the API reads, under the names an error's `param` gives them. */
const READ_HEADERS = [
  'Authorization',
  'Idempotency-Key',
  'X-Sub-Merchant-Code',
  'Accept-Language',
  'If-None-Match',
];

type RequestInput = Pick<Request, 'params' | 'query' | 'body' | 'headers'>;

/** The first part of a request PostgreSQL could not store, or that nests absurdly deep. */
export function findRequestInputProblem(request: RequestInput): InputProblem | null {
  const sources: Array<() => InputProblem | null> = [
    () => findInputProblem(request.params),
    () => findInputProblem(request.query),
    ...READ_HEADERS.map(
      (name) => () => findInputProblem(request.headers[name.toLowerCase()], name),
    ),
    () => findInputProblem(request.body),
  ];
  for (const source of sources) {
    const problem = source();
    if (problem) return problem;
  }
  return null;
}

/**
 * One rule for every route, public ones included: input that cannot be stored (NUL, unpaired
 * surrogates) or nests deeper than 32 levels is a 400 naming the parameter. A guard, registered
 * before every other one, because guards are the first step that sees the matched route's params,
 * and this must come before authentication, validation and any query.
 */
@Injectable()
export class RequestInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const problem = findRequestInputProblem(context.switchToHttp().getRequest<Request>());
    if (problem) throw new ApiException(ErrorCode.ParameterInvalid, problem.message, problem.param);
    return true;
  }
}
