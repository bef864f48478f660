import { ChainError } from '../../rpc/chain-error';
import { TimeoutError } from '../../rpc/retry';
import { normalizeTronError, TronResponseError } from './tron-errors';

// The parts of an axios error that tronweb's HttpProvider rejects with.
const httpFailure = (status?: number, code?: string): object => ({
  isAxiosError: true,
  code,
  message: 'request failed',
  config: { headers: { 'TRON-PRO-API-KEY': 'secret' } },
  ...(status === undefined ? {} : { response: { status } }),
});

const kindOf = (error: unknown): string => normalizeTronError(error, 'TRON', 'call').kind;

describe('normalizeTronError', () => {
  it('treats no response, 5xx, 429 and timeouts as transient', () => {
    expect(kindOf(httpFailure(undefined, 'ECONNREFUSED'))).toBe('transient');
    expect(kindOf(httpFailure(undefined, 'ECONNABORTED'))).toBe('transient');
    expect(kindOf(httpFailure(503))).toBe('transient');
    expect(kindOf(httpFailure(429))).toBe('transient');
    expect(kindOf(new TimeoutError('timed out'))).toBe('transient');
    expect(kindOf(new TronResponseError('busy', true))).toBe('transient');
  });

  it('treats 4xx, malformed responses and unknown errors as permanent', () => {
    expect(kindOf(httpFailure(404))).toBe('permanent');
    expect(kindOf(new TronResponseError('malformed response: log data'))).toBe('permanent');
    expect(kindOf(new TypeError('boom'))).toBe('permanent');
  });

  it('keeps ChainErrors and never keeps the HTTP client error, which holds the API key', () => {
    const original = new ChainError('transient', 'x', 'TRON');
    expect(normalizeTronError(original, 'TRON', 'call')).toBe(original);
    const normalized = normalizeTronError(httpFailure(500), 'TRON', 'TRON wallet/getnowblock');
    expect(normalized.cause).toBeUndefined();
    expect(normalized.message).toBe('TRON wallet/getnowblock: HTTP 500');
  });
});
