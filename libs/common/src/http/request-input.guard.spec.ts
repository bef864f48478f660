import type { ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import { findRequestInputProblem, RequestInputGuard } from './request-input.guard';

const requestWith = (parts: Partial<Request>): Request =>
  ({ params: {}, query: {}, headers: {}, body: undefined, ...parts }) as Request;

const contextOf = (request: Request) =>
  ({
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request }),
  }) as unknown as ExecutionContext;

describe('findRequestInputProblem', () => {
  it('looks at path parameters, the query, the headers the API reads and the body', () => {
    expect(findRequestInputProblem(requestWith({ params: { id: 'cs_\u0000' } }))?.param).toBe('id');
    expect(
      findRequestInputProblem(requestWith({ query: { search_text: ['a', '\u0000'] } })),
    ).toEqual({ param: 'search_text.1', message: 'search_text.1 contains a NUL character.' });
    expect(
      findRequestInputProblem(requestWith({ headers: { 'x-sub-merchant-code': 'shop\u0000' } })),
    ).toEqual({
      param: 'X-Sub-Merchant-Code',
      message: 'X-Sub-Merchant-Code contains a NUL character.',
    });
    expect(findRequestInputProblem(requestWith({ body: { note: '\ud800' } }))?.param).toBe('note');
  });

  it('ignores headers the API never reads, and passes a clean request', () => {
    expect(findRequestInputProblem(requestWith({ headers: { 'x-other': '\u0000' } }))).toBeNull();
    expect(
      findRequestInputProblem(
        requestWith({
          params: { id: 'cs_1' },
          query: { status: ['Paid', 'Pending'] },
          headers: { 'idempotency-key': 'k-1', authorization: 'Bearer sk_test_x' },
          body: { metadata: { note: 'Café 😀' } },
        }),
      ),
    ).toBeNull();
  });

  it('names the path parameter first when several parts are bad', () => {
    const problem = findRequestInputProblem(
      requestWith({ params: { code: '\u0000' }, body: { name: '\u0000' } }),
    );
    expect(problem?.param).toBe('code');
  });
});

describe('RequestInputGuard', () => {
  const guard = new RequestInputGuard();

  it('throws a 400 parameter_invalid naming the parameter', () => {
    const attempt = () => guard.canActivate(contextOf(requestWith({ params: { id: '\u0000' } })));
    expect(attempt).toThrow(ApiException);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: ErrorCode.ParameterInvalid, param: 'id', status: 400 });
    }
  });

  it('lets clean requests and non-HTTP contexts through', () => {
    expect(guard.canActivate(contextOf(requestWith({ params: { id: 'cs_1' } })))).toBe(true);
    expect(guard.canActivate({ getType: () => 'rpc' } as unknown as ExecutionContext)).toBe(true);
  });
});
