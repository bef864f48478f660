import { Network, WebSocketProvider } from 'ethers';
import { NetworkConfig } from '../../networks/network.types';
import { HeadListener, HeadsProblemListener, HeadSubscription } from '../chain-adapter';

// Reconnection backoff: a node that refuses WebSockets is retried rarely, not in a tight loop.
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;

/**
 * Follows one EVM network's new heads over a WebSocket (`eth_subscribe` `newHeads`), so the
 * deposit watcher wakes when a block arrives instead of at its next poll. A hint only: the watcher
 * reads the head and the logs over HTTP as always, and keeps polling, so a dropped socket or a
 * missed notification delays detection by at most one poll interval.
 *
 * ethers' WebSocketProvider subscribes and parses, but never reconnects, and leaves the socket's
 * errors unhandled; so the socket is made here (the runtime's WebSocket) with its own error and
 * close handlers, and a closed socket is replaced, with backoff, by a new provider.
 */
export class EvmNewHeads implements HeadSubscription {
  private provider: WebSocketProvider | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly network: NetworkConfig,
    private readonly url: string,
    private readonly onHead: HeadListener,
    private readonly onProblem: HeadsProblemListener,
  ) {
    this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.dropProvider();
  }

  private connect(): void {
    this.reconnectTimer = null;
    if (this.closed) return;
    let socket: WebSocket | null = null;
    const provider = new WebSocketProvider(
      () => {
        socket = new WebSocket(this.url);
        socket.onerror = () => undefined; // the close event that follows reports it
        socket.onclose = (event) => this.lost(provider, `socket closed (${event.code})`);
        return socket;
      },
      // A bare static network: no eth_chainId round trip and no plugins (see EvmRpc).
      new Network(this.network.name, this.network.chainId),
      { staticNetwork: true },
    );
    this.provider = provider;
    provider
      .on('block', (blockNumber: number) => {
        this.failures = 0;
        this.onHead(blockNumber);
      })
      .catch((error: unknown) => this.lost(provider, describe(error)));
  }

  /** The provider's socket closed or its subscription failed: replace it after a backoff. */
  private lost(provider: WebSocketProvider, reason: string): void {
    if (this.closed || this.provider !== provider) return;
    this.failures += 1;
    this.onProblem(reason, this.failures);
    void this.dropProvider();
    const delay = Math.min(RECONNECT_MIN_MS * 2 ** (this.failures - 1), RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private async dropProvider(): Promise<void> {
    const provider = this.provider;
    this.provider = null;
    if (!provider) return;
    try {
      await provider.destroy();
    } catch {
      // Destroying a provider whose socket never opened may throw; nothing is left to release.
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
