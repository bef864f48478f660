import { NetworkConfig } from '../../networks/network.types';
import { HeadListener, HeadsProblemListener, HeadSubscription } from '../chain-adapter';

// Reconnection backoff: a node that refuses WebSockets is retried rarely, not in a tight loop.
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;
const SUBSCRIBE_REQUEST_ID = 1;
const QUANTITY = /^0x[0-9a-f]{1,13}$/i;

/**
 * Follows one EVM network's new heads over a WebSocket (`eth_subscribe` `newHeads`), so the
 * deposit watcher wakes when a block arrives instead of at its next poll. A hint only: the watcher
 * reads the head and the logs over HTTP as always, and keeps polling, so a dropped socket or a
 * missed notification delays detection by at most one poll interval.
 *
 * The socket is the runtime's WebSocket, spoken to directly: one request and its notifications.
 * ethers' WebSocketProvider was tried first: it never reconnects, and once its socket has closed,
 * destroying it rejects its pending `eth_subscribe` where nothing can catch it (an unhandled
 * rejection, which ends a Node process). Here a closed socket, or a node that refuses the
 * subscription, is reported and replaced after a backoff.
 */
export class EvmNewHeads implements HeadSubscription {
  private socket: WebSocket | null = null;
  private subscriptionId: string | null = null;
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
    this.socket?.close();
    this.socket = null;
  }

  private connect(): void {
    this.reconnectTimer = null;
    if (this.closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.lost(null, error instanceof Error ? error.message : String(error));
      return;
    }
    this.socket = socket;
    this.subscriptionId = null;
    socket.onopen = () =>
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: SUBSCRIBE_REQUEST_ID,
          method: 'eth_subscribe',
          params: ['newHeads'],
        }),
      );
    socket.onmessage = (event: MessageEvent) => this.receive(socket, event.data);
    socket.onerror = () => undefined; // the close event that follows reports it
    socket.onclose = (event: { code: number }) =>
      this.lost(socket, `socket closed (${event.code})`);
  }

  private receive(socket: WebSocket, data: unknown): void {
    if (socket !== this.socket || typeof data !== 'string') return;
    let message: RpcMessage;
    try {
      message = JSON.parse(data) as RpcMessage;
    } catch {
      return;
    }
    if (message?.id === SUBSCRIBE_REQUEST_ID) {
      if (typeof message.result === 'string') {
        this.subscriptionId = message.result;
        return;
      }
      // The node answered, but will not subscribe: no use keeping the socket.
      const reason = message.error?.message ?? 'no subscription id';
      this.lost(socket, `${this.network.name} refused eth_subscribe: ${String(reason)}`);
      socket.close();
      return;
    }
    const params = message?.method === 'eth_subscription' ? message.params : undefined;
    if (!params || params.subscription !== this.subscriptionId) return;
    const number = params.result?.number;
    if (typeof number !== 'string' || !QUANTITY.test(number)) return;
    this.failures = 0;
    this.onHead(Number(number));
  }

  /** The socket closed or the node refused: report it and connect again after a backoff. */
  private lost(socket: WebSocket | null, reason: string): void {
    if (this.closed || socket !== this.socket) return;
    this.socket = null;
    this.failures += 1;
    this.onProblem(reason, this.failures);
    const delay = Math.min(RECONNECT_MIN_MS * 2 ** (this.failures - 1), RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }
}

/** The JSON-RPC messages a node sends on this socket: the subscription's answer, then heads. */
interface RpcMessage {
  id?: number;
  result?: unknown;
  error?: { message?: unknown };
  method?: string;
  params?: { subscription?: unknown; result?: { number?: unknown } };
}
