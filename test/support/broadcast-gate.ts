import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/*
 * A JSON-RPC proxy that can hold every eth_sendRawTransaction unanswered (and unsent) while
 * everything else passes: a worker then signs and journals a transaction and hangs in its
 * broadcast, the exact moment a crash test wants to kill it at. Released requests are dropped,
 * never forwarded late: the bytes reach the node only if the next worker sends them again.
 */
export class BroadcastGate {
  /** Raw transactions that arrived while the gate was closed (never forwarded). */
  readonly held: string[] = [];
  private closed = false;
  private readonly waiting = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  private constructor(private readonly target: string) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(target: string): Promise<BroadcastGate> {
    const gate = new BroadcastGate(target);
    await new Promise<void>((resolve, reject) => {
      gate.server.once('error', reject);
      gate.server.listen(0, '127.0.0.1', () => resolve());
    });
    gate.port = (gate.server.address() as AddressInfo).port;
    return gate;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** From now on broadcasts hang. */
  close(): void {
    this.closed = true;
  }

  /** Broadcasts pass again; the held ones are dropped (their connections cut). */
  open(): void {
    this.closed = false;
    for (const response of this.waiting) response.destroy();
    this.waiting.clear();
  }

  async stop(): Promise<void> {
    this.open();
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await stopped;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const parsed = JSON.parse(body) as { method?: string; params?: unknown[] } | unknown[];
    const sends = (Array.isArray(parsed) ? parsed : [parsed]).filter(
      (one) => (one as { method?: string }).method === 'eth_sendRawTransaction',
    ) as Array<{ params: string[] }>;
    if (this.closed && sends.length) {
      this.held.push(...sends.map((one) => one.params[0]));
      this.waiting.add(response);
      return;
    }
    const forwarded = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const answer = await forwarded.text();
    response.writeHead(forwarded.status, { 'content-type': 'application/json' });
    response.end(answer);
  }
}
