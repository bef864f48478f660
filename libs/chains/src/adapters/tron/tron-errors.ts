import { ChainError } from '../../rpc/chain-error';
import { TimeoutError } from '../../rpc/retry';

/** The node answered, but with an error or with something its HTTP API does not document. */
export class TronResponseError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = 'TronResponseError';
  }
}

/** What we read of tronweb's HTTP client (axios) errors; typed here so nothing depends on axios. */
interface HttpClientFailure {
  isAxiosError: true;
  code?: string;
  response?: { status: number };
}

function isHttpClientFailure(error: unknown): error is HttpClientFailure {
  return typeof error === 'object' && error !== null && 'isAxiosError' in error;
}

/**
 * Maps anything a TRON request throws to a ChainError. The client's own error is never kept as
 * `cause`: it carries the request configuration, API key header included, and causes get logged.
 */
export function normalizeTronError(error: unknown, network: string, label: string): ChainError {
  if (error instanceof ChainError) return error;
  if (error instanceof TimeoutError) {
    return new ChainError('transient', `${label}: ${error.message}`, network);
  }
  if (error instanceof TronResponseError) {
    return new ChainError(
      error.transient ? 'transient' : 'permanent',
      `${label}: ${error.message}`,
      network,
    );
  }
  if (isHttpClientFailure(error)) {
    const status = error.response?.status;
    // No response at all: refused, reset, DNS failure or the client's own timeout.
    if (status === undefined) {
      return new ChainError(
        'transient',
        `${label}: no response (${error.code ?? 'network error'})`,
        network,
      );
    }
    const kind = status === 429 || status >= 500 ? 'transient' : 'permanent';
    return new ChainError(kind, `${label}: HTTP ${status}`, network);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ChainError('permanent', `${label}: ${message}`, network, error);
}
