import { makeError } from 'ethers';
import { ChainError } from '../../rpc/chain-error';
import { TimeoutError } from '../../rpc/retry';
import { normalizeEvmError, RangeTooLargeError } from './evm-errors';

const SECRET_URL = 'https://eth-mainnet.example.com/v2/secret-api-key';

function systemError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:8545`), { code });
}

// Shaped like ethers' SERVER_ERROR, which carries the request URL (and with it any API key).
function httpError(status: string): Error {
  return Object.assign(new Error(`server response ${status} (requestUrl="${SECRET_URL}")`), {
    code: 'SERVER_ERROR',
    info: { requestUrl: SECRET_URL, responseStatus: status, responseBody: '' },
  });
}

function rpcError(code: number, message: string): Error {
  return makeError('could not coalesce error', 'UNKNOWN_ERROR', { error: { code, message } });
}

const normalize = (error: unknown, isLogQuery = false) =>
  normalizeEvmError(error, 'ETHEREUM', 'eth_call', isLogQuery);

describe('normalizeEvmError', () => {
  it.each<[string, unknown]>([
    ['connection refused', systemError('ECONNREFUSED')],
    ['connection reset', systemError('ECONNRESET')],
    ['DNS hiccup', systemError('EAI_AGAIN')],
    ['our timeout', new TimeoutError('eth_call timed out after 10 ms')],
    ['ethers timeout', makeError('request timeout', 'TIMEOUT')],
    ['HTTP 503', httpError('503 Service Unavailable')],
    ['HTTP 429', httpError('429 Too Many Requests')],
    ['JSON-RPC rate limit', rpcError(-32005, 'daily request count exceeded, request rate limited')],
    ['lagging node', rpcError(-32000, 'header not found')],
    ['internal error', rpcError(-32603, 'internal error')],
  ])('classifies %s as transient', (_name, error) => {
    expect(normalize(error).kind).toBe('transient');
  });

  it.each<[string, unknown]>([
    ['HTTP 401', httpError('401 Unauthorized')],
    ['invalid params', rpcError(-32602, 'invalid argument 0: hex string without 0x prefix')],
    ['unknown method', rpcError(-32601, 'the method eth_foo does not exist')],
    ['malformed result', makeError('invalid numeric string', 'INVALID_ARGUMENT')],
    [
      'body that is not JSON',
      makeError('response body is not valid JSON', 'UNSUPPORTED_OPERATION'),
    ],
    ['bug of ours', new TypeError('cannot read properties of undefined')],
  ])('classifies %s as permanent', (_name, error) => {
    expect(normalize(error).kind).toBe('permanent');
  });

  it.each([
    'query returned more than 10000 results',
    'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    'exceed maximum block range: 50000',
    'eth_getLogs is limited to a 10,000 range',
    'block range is too wide',
    'requested too many blocks from 0 to 5000, maximum is set to 2048',
  ])('recognizes a log range refusal: %s', (message) => {
    expect(normalize(rpcError(-32005, message), true)).toBeInstanceOf(RangeTooLargeError);
    expect(normalize(rpcError(-32005, message), false)).not.toBeInstanceOf(RangeTooLargeError);
  });

  it('never repeats the RPC URL nor keeps the ethers error, which carries it', () => {
    const error = normalize(httpError('503 Service Unavailable'));
    expect(error.message).toBe('eth_call: HTTP 503');
    expect(error.cause).toBeUndefined();
  });

  it('passes ChainErrors through unchanged', () => {
    const original = new ChainError('permanent', 'already normalized', 'ETHEREUM');
    expect(normalize(original)).toBe(original);
  });
});
