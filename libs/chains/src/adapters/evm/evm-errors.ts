import { ChainError } from '../../rpc/chain-error';
import { TimeoutError } from '../../rpc/retry';

/**
 * The node refused an eth_getLogs range as too large or as producing too many results. Permanent
 * for withRetry (the same range fails again on any attempt); the adapter splits the range instead.
 */
export class RangeTooLargeError extends ChainError {
  constructor(message: string, network: string) {
    super('permanent', message, network);
    this.name = 'RangeTooLargeError';
  }
}

// Connection-level failures of Node's http stack and undici: the node is down or unreachable.
const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

// ethers codes for "no usable answer arrived"; every other ethers code means the request or the
// answer was wrong (INVALID_ARGUMENT, BAD_DATA, a body that is not JSON, a destroyed provider).
const TRANSIENT_ETHERS_CODES = new Set(['TIMEOUT', 'NETWORK_ERROR', 'CANCELLED']);

// JSON-RPC codes that blame the request itself. Nodes use every other code (-32000 server error,
// -32603 internal error, -32005 limit exceeded, vendor codes) for overload, rate limits and a
// lagging node's missing state, which retrying or another node can cure.
const PERMANENT_RPC_CODES = new Set([-32700, -32600, -32601, -32602]);

// Providers word rate limits in many ways; these are the ones seen from public RPCs.
export const RATE_LIMIT_PATTERN =
  /rate.?limit|too many requests|request limit|quota|credits|capacity|throttl|overload|busy|try again/i;

// How nodes and providers refuse a large eth_getLogs: geth/Infura "query returned more than 10000
// results", Alchemy "Log response size exceeded", BSC/publicnode "exceed maximum block range",
// QuickNode "limited to a 10,000 range", Ankr "block range is too wide", Base "requested too many
// blocks ... maximum is set to 2048".
const RANGE_TOO_LARGE_PATTERN =
  /more than [\d,]+ (results|logs)|too many (results|logs|blocks)|response size|block range|range (is )?too|range limit|ranges over|limited to (a )?[\d,]+|maximum is set to|max(imum)? (block )?range|exceeds? (the )?max/i;

const HTTP_STATUS_PATTERN = /^(\d{3})\b/;

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  error?: unknown;
  info?: unknown;
  shortMessage?: unknown;
}

/**
 * Turns whatever an RPC call threw into a ChainError. The message is built from safe parts only:
 * ethers errors embed the request URL, which for hosted RPCs carries the API key, so neither
 * their message nor the error itself (as `cause`) is passed on.
 */
export function normalizeEvmError(
  error: unknown,
  network: string,
  context: string,
  isLogQuery = false,
): ChainError {
  if (error instanceof ChainError) return error;
  if (error instanceof TimeoutError) {
    return new ChainError('transient', `${context}: ${error.message}`, network);
  }
  const fields: ErrorFields = typeof error === 'object' && error !== null ? error : {};
  const code = typeof fields.code === 'string' ? fields.code : undefined;

  if (code && TRANSIENT_SYSTEM_CODES.has(code)) {
    return new ChainError('transient', `${context}: node unreachable (${code})`, network);
  }
  if (code && TRANSIENT_ETHERS_CODES.has(code)) {
    return new ChainError('transient', `${context}: ${code.toLowerCase()}`, network);
  }
  if (code === 'SERVER_ERROR') return fromHttpError(fields, network, context);

  const rpcError = readRpcError(fields.error);
  if (rpcError) return fromRpcError(rpcError, network, context, isLogQuery);

  if (code) {
    const reason = typeof fields.shortMessage === 'string' ? fields.shortMessage : code;
    return new ChainError(
      'permanent',
      `${context}: invalid request or response (${reason})`,
      network,
    );
  }
  // Not from ethers or the network: a bug of ours, worth a stack trace in the cause.
  const message = error instanceof Error ? error.message : String(error);
  return new ChainError('permanent', `${context}: ${message}`, network, error);
}

function fromHttpError(fields: ErrorFields, network: string, context: string): ChainError {
  const info = typeof fields.info === 'object' && fields.info !== null ? fields.info : {};
  const statusText = 'responseStatus' in info ? String(info.responseStatus) : '';
  const status = Number(HTTP_STATUS_PATTERN.exec(statusText)?.[1] ?? 0);
  // No status: ethers gave up on its own (redirect loop, processing error), as good as a 5xx.
  const transient = status === 0 || status >= 500 || status === 429 || status === 408;
  const described = status === 0 ? 'server error' : `HTTP ${status}`;
  return new ChainError(transient ? 'transient' : 'permanent', `${context}: ${described}`, network);
}

function fromRpcError(
  rpcError: { code: number; message: string },
  network: string,
  context: string,
  isLogQuery: boolean,
): ChainError {
  const described = `${context}: JSON-RPC error ${rpcError.code} ${rpcError.message}`;
  // Range first: some refusals of a large range read like rate limits ("try again with ...").
  if (isLogQuery && RANGE_TOO_LARGE_PATTERN.test(rpcError.message)) {
    return new RangeTooLargeError(described, network);
  }
  if (RATE_LIMIT_PATTERN.test(rpcError.message)) {
    return new ChainError('transient', described, network);
  }
  const kind = PERMANENT_RPC_CODES.has(rpcError.code) ? 'permanent' : 'transient';
  return new ChainError(kind, described, network);
}

/** The JSON-RPC error object `{code, message}` a node answered with, if `value` is one. */
export function readRpcError(value: unknown): { code: number; message: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message } = value as ErrorFields;
  if (typeof code !== 'number' || typeof message !== 'string') return undefined;
  return { code, message };
}
