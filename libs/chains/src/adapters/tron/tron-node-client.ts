import { inSpan, SpanKind } from '@app/common/tracing/trace-context';
import { providers } from 'tronweb';
import { NetworkConfig } from '../../networks/network.types';
import { DEFAULT_RETRY, RetryOptions, withRetry } from '../../rpc/retry';
import { normalizeTronError } from './tron-errors';

type HttpProvider = InstanceType<typeof providers.HttpProvider>;

export interface TronNodeClientOptions {
  retry?: RetryOptions;
  /** TronGrid API key, sent as TRON-PRO-API-KEY to TronGrid hosts only. */
  apiKey?: string;
}

/** The key identifies our TronGrid account: another provider in the list must never receive it. */
export function headersFor(url: string, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  const host = new URL(url).hostname;
  const isTronGrid = host === 'trongrid.io' || host.endsWith('.trongrid.io');
  return isTronGrid ? { 'TRON-PRO-API-KEY': apiKey } : {};
}

/**
 * POSTs to a java-tron HTTP API through tronweb's HttpProvider, one provider per RPC URL, with
 * retries and failover: attempt i goes to URL (start + i) % n, where start is the URL that last
 * answered. A scan makes one request per block, so a dead first URL must not cost every request
 * a failed attempt (a timeout, when the node hangs).
 */
export class TronNodeClient {
  private readonly providers: HttpProvider[];
  private readonly retry: RetryOptions;
  private preferredIndex = 0;

  constructor(
    private readonly network: NetworkConfig,
    options: TronNodeClientOptions = {},
  ) {
    if (network.rpcUrls.length === 0) throw new Error(`Network ${network.name} has no RPC URLs.`);
    this.retry = options.retry ?? DEFAULT_RETRY;
    // The provider's own timeout ends the HTTP request itself; withRetry only stops waiting.
    this.providers = network.rpcUrls.map(
      (url) =>
        new providers.HttpProvider(
          url,
          this.retry.timeoutMs,
          '',
          '',
          headersFor(url, options.apiKey),
        ),
    );
  }

  /** The next request starts at the following URL (see ChainAdapter.preferNextProvider). */
  preferNext(): void {
    this.preferredIndex = (this.preferredIndex + 1) % this.providers.length;
  }

  /**
   * After pinned requests to `source` failed although it answered the request they follow: the
   * next request starts at the following URL, unless another one is preferred already. A URL that
   * answers the head but fails block reads would otherwise answer every next head read too.
   */
  avoid(source: number): void {
    if (this.preferredIndex === source) this.preferNext();
  }

  /**
   * `parse` runs inside the attempt, so a node-reported transient error fails over too. With
   * `pinned` (a `source` of requestWithSource), every attempt goes to that URL and none fails over:
   * for reads that must see the same node as an earlier one.
   */
  async request<T>(
    path: string,
    body: Record<string, unknown>,
    parse: (value: unknown) => T,
    pinned?: number,
  ): Promise<T> {
    return (await this.requestWithSource(path, body, parse, pinned)).value;
  }

  /** The answer and the position of the URL that gave it (see `pinned` of request). */
  requestWithSource<T>(
    path: string,
    body: Record<string, unknown>,
    parse: (value: unknown) => T,
    pinned?: number,
  ): Promise<{ value: T; source: number }> {
    const firstIndex = pinned ?? this.preferredIndex;
    const step = pinned === undefined ? 1 : 0;
    const label = `TRON ${path}`;
    return withRetry(
      async (attempt) => {
        const index = (firstIndex + attempt * step) % this.providers.length;
        // URLs may carry secrets: errors name the URL by its position only.
        const attemptLabel = `${label} (RPC URL #${index + 1})`;
        try {
          // A span per HTTP request to the node, in the caller's trace (docs/operations.md).
          const answer = await inSpan(
            `rpc ${path}`,
            { 'rpc.system': 'tron', 'rpc.method': path, 'chain.network': this.network.name },
            () => this.providers[index].request<unknown>(path, body, 'post'),
            SpanKind.CLIENT,
          );
          const value = parse(answer);
          this.preferredIndex = index;
          return { value, source: index };
        } catch (error) {
          throw normalizeTronError(error, this.network.name, attemptLabel);
        }
      },
      (error) => normalizeTronError(error, this.network.name, label),
      this.retry,
      label,
    );
  }
}
