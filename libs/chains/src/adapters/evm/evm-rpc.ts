import {
  FetchRequest,
  JsonRpcApiProviderOptions,
  JsonRpcPayload,
  JsonRpcProvider,
  JsonRpcResult,
  makeError,
  Network,
} from 'ethers';
import { inSpan, SpanKind } from '@app/common/tracing/trace-context';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError } from '../../rpc/chain-error';
import { DEFAULT_RETRY, RetryOptions, withRetry, withTimeout } from '../../rpc/retry';
import { normalizeEvmError } from './evm-errors';
import { ReceiptFeeUnknown } from './receipts-without-fee';

// ethers waits 4 s between polls by default; tx.wait() on these providers should not.
const POLLING_INTERVAL_MS = 250;

/**
 * The JSON-RPC providers of one EVM network, one per RPC URL, and the one way to call them: with
 * retries, timeouts and failover, every failure normalized to a ChainError. Shared by everything
 * that talks to an EVM node, so they all behave alike when a node is slow, down or rate-limited.
 */
export class EvmRpc {
  readonly retry: RetryOptions;
  private readonly providers: JsonRpcProvider[];
  /** The provider that answered last: calls start there, so a dead first URL costs one timeout. */
  private preferredIndex = 0;
  private closed = false;

  constructor(
    readonly network: NetworkConfig,
    retry: RetryOptions = DEFAULT_RETRY,
  ) {
    if (network.chainFamily !== 'EVM') {
      throw new Error(`${network.name} is a ${network.chainFamily} network, not EVM.`);
    }
    if (network.rpcUrls.length === 0) throw new Error(`${network.name} has no RPC URLs.`);
    this.retry = retry;
    this.providers = network.rpcUrls.map((url) => this.createProvider(url));
  }

  /**
   * One RPC call with retries; attempt i goes to RPC URL (preferred + i) mod n, so failures fail
   * over and the next call starts at the URL that last answered. An
   * operation that must not be retried after some answer returns that answer instead of throwing.
   */
  call<T>(
    method: string,
    operation: (provider: JsonRpcProvider) => Promise<T>,
    isLogQuery = false,
  ): Promise<T> {
    if (this.closed) {
      return Promise.reject(new ChainError('permanent', 'RPC client closed', this.network.name));
    }
    const count = this.providers.length;
    const first = this.preferredIndex;
    let latestAttempt = 0;
    return withRetry(
      async (attempt) => {
        latestAttempt = attempt;
        const index = (first + attempt) % count;
        try {
          const result = await operation(this.providers[index]);
          // An attempt abandoned on timeout that answers late does not make its URL preferred.
          if (attempt === latestAttempt) this.preferredIndex = index;
          return result;
        } catch (error) {
          // The position, never the URL: hosted RPC URLs carry API keys.
          const context = count > 1 ? `${method} (RPC ${index + 1} of ${count})` : method;
          throw normalizeEvmError(error, this.network.name, context, isLogQuery);
        }
      },
      (error) => normalizeEvmError(error, this.network.name, method, isLogQuery),
      this.retry,
      `${this.network.name} ${method}`,
    );
  }

  /**
   * A read of one receipt: as `call`, but for a ReceiptFeeUnknown (a receipt answered without
   * its fee). That answer proves the transaction mined, so it is never replaced by a later
   * attempt's absence (`absent`, e.g. noReceipt: a lagging node) or error (a URL down): if no
   * URL answers the receipt whole, the read throws it (review r9b follow-up 2, M-1: a
   * [stripping, down] pair of URLs ended on the 503, a [stripping, lagging] pair on null). It is
   * one node's view: callers still check its block. The URLs are asked round the ring, the
   * stripping one included, as many times as the retries' attempts and each URL once at least,
   * with no backoff (a good URL anywhere in the list is reached; 4 attempts with backoff missed
   * a 5th URL). Any other error is retried as `call` does.
   */
  async callReceipt<T>(
    method: string,
    absent: (answer: T) => boolean,
    operation: (provider: JsonRpcProvider) => Promise<T>,
  ): Promise<T> {
    let feeUnknown: FeeUnknownStop;
    try {
      return await this.call(method, async (provider) => {
        try {
          return await operation(provider);
        } catch (error) {
          if (!(error instanceof ReceiptFeeUnknown)) throw error;
          // Permanent, so call's retries stop here: the URLs are asked again below.
          throw new FeeUnknownStop(error, this.providers.indexOf(provider));
        }
      });
    } catch (error) {
      // Only the error call ended on counts (review r9b follow-up 3, L-3): an attempt it gave up
      // on (timed out) that answers late without the fee must not swallow a later permanent
      // error.
      if (!(error instanceof FeeUnknownStop)) throw error;
      feeUnknown = error;
    }
    const count = this.providers.length;
    // As many asks as the retries would make, and each URL at least once (review r9b follow-up
    // 3, M-1): round the ring, the stripping URL included, since one URL may be a load balancer
    // whose next backend answers the receipt whole.
    const asks = Math.max(this.retry.attempts, count);
    for (let step = 1; step < asks; step++) {
      const index = (feeUnknown.index + step) % count;
      try {
        const other = await withTimeout(
          operation(this.providers[index]),
          this.retry.timeoutMs,
          `${this.network.name} ${method}`,
        );
        if (absent(other)) continue;
        this.preferredIndex = index;
        return other;
      } catch {
        // Down, lagging or also without the fee: the receipt already seen stands.
      }
    }
    throw feeUnknown.feeUnknown;
  }

  /** The next call starts at the following URL (see ChainAdapter.preferNextProvider). */
  preferNext(): void {
    this.preferredIndex = (this.preferredIndex + 1) % this.providers.length;
  }

  /** Destroys the providers; every later call fails with a permanent ChainError. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const provider of this.providers) provider.destroy();
  }

  private createProvider(url: string): JsonRpcProvider {
    const request = new FetchRequest(url);
    // withRetry owns retries and timeouts: ethers would otherwise retry a 429 up to 12 times and
    // let a hung request run for 5 minutes after withRetry gave up on it.
    request.retryFunc = async () => false;
    request.timeout = this.retry.timeoutMs;
    // A bare network, not Network.from(chainId): for known chains ethers attaches plugins, e.g. a
    // fee-data fetcher that asks Polygon's gas station instead of the configured RPC URLs.
    const network = new Network(this.network.name, this.network.chainId);
    return new NativeDecodingProvider(request, network, {
      // A static network: otherwise a provider whose node is down retries detection forever.
      staticNetwork: network,
      // ethers caches identical calls for 250 ms, which returns a stale head right after a block.
      cacheTimeout: -1,
      pollingInterval: POLLING_INTERVAL_MS,
      // One request per call: some public RPCs reject or cap batches, and a failed batch would
      // fail calls that have nothing to do with the failure.
      batchMaxCount: 1,
    });
  }
}

/** An answer of no receipt (null): a node that does not have it (yet) proves nothing. */
export const noReceipt = (answer: unknown): boolean => answer === null;

/** Ends `call`'s retries at a ReceiptFeeUnknown (callReceipt asks the other URLs itself). */
class FeeUnknownStop extends ChainError {
  constructor(
    readonly feeUnknown: ReceiptFeeUnknown,
    /** The URL that answered it. */
    readonly index: number,
  ) {
    super('permanent', feeUnknown.message, feeUnknown.network, feeUnknown);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_ENCODER = new TextEncoder();

/**
 * ethers' JsonRpcProvider reading answers with the runtime's UTF-8 decoder and JSON.parse, and
 * writing requests with its encoder. ethers converts UTF-8 in JavaScript, code point by code
 * point, both ways: over 100 ms for the eth_getLogs answer of 1,000 transfers (about 1 MB), and
 * 5 s of a 10,000-address reconciliation's CPU for its 8 MB of Multicall3 requests, against about
 * 1 ms a megabyte here. Otherwise ethers' own `_send`: the same request (headers, timeout), the
 * same checks and the same errors.
 */
class NativeDecodingProvider extends JsonRpcProvider {
  private readonly networkName: string;

  constructor(request: FetchRequest, network: Network, options: JsonRpcApiProviderOptions) {
    super(request, network, options);
    this.networkName = network.name;
  }

  // One span per JSON-RPC request (batches are off, see batchMaxCount), in the caller's trace.
  override _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const method = Array.isArray(payload) ? 'batch' : payload.method;
    return inSpan(
      `rpc ${method}`,
      { 'rpc.system': 'jsonrpc', 'rpc.method': method, 'chain.network': this.networkName },
      () => this.sendNow(payload),
      SpanKind.CLIENT,
    );
  }

  private async sendNow(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const request = this._getConnection();
    // Bytes, so ethers does not encode the string itself (a Uint8Array body is taken as it is).
    request.body = UTF8_ENCODER.encode(JSON.stringify(payload));
    request.setHeader('content-type', 'application/json');
    const response = await request.send();
    response.assertOk();
    let text: string;
    try {
      text = response.body === null ? '' : UTF8.decode(response.body);
    } catch {
      throw makeError('response body is not valid UTF-8 data', 'UNSUPPORTED_OPERATION', {
        operation: 'bodyText',
        info: { response },
      });
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw makeError('response body is not valid JSON', 'UNSUPPORTED_OPERATION', {
        operation: 'bodyJson',
        info: { response },
      });
    }
    return (Array.isArray(answer) ? answer : [answer]) as JsonRpcResult[];
  }
}
