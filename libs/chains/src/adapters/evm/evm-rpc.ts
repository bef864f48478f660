import { FetchRequest, JsonRpcProvider, Network } from 'ethers';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError } from '../../rpc/chain-error';
import { DEFAULT_RETRY, RetryOptions, withRetry } from '../../rpc/retry';
import { normalizeEvmError } from './evm-errors';

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
   * One RPC call with retries; attempt i goes to RPC URL i mod n, so failures fail over. An
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
    return withRetry(
      async (attempt) => {
        const index = attempt % count;
        try {
          return await operation(this.providers[index]);
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
    const network = Network.from(this.network.chainId);
    return new JsonRpcProvider(request, network, {
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
