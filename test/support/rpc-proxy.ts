import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/*
 * An HTTP proxy in front of an RPC URL, so a test can make "the RPC go away and come back"
 * (or misbehave) without touching the node behind it.
 */

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

/** What to answer instead of forwarding: an HTTP status and a raw body. */
export interface ProxyReply {
  status: number;
  body: string;
}

/**
 * Returns a reply to answer a request itself, `'hang'` to hold it unanswered (one method of a
 * node stuck while the others answer), or undefined to forward it to the node.
 */
export type RpcInterceptor = (request: JsonRpcRequest) => ProxyReply | 'hang' | undefined;

/** Returns another body for a forwarded answer, or undefined to pass the node's answer on. */
export type RpcRewriter = (request: JsonRpcRequest, answer: string) => string | undefined;

/**
 * `refuse`: the port is closed (ECONNREFUSED). `unavailable`: every request gets a 503. `hang`:
 * requests are accepted and never answered (a node stuck behind a load balancer).
 */
export type DownMode = 'refuse' | 'unavailable' | 'hang';

export class RpcProxy {
  /** Methods of the requests that reached the proxy while it was up, in order. */
  readonly methods: string[] = [];
  private readonly sockets = new Set<Socket>();
  /** Requests held unanswered in `hang` mode; dropped when the mode changes. */
  private readonly held = new Set<ServerResponse>();
  private mode: DownMode | 'up' = 'up';
  private interceptor: RpcInterceptor | undefined;
  private rewriter: RpcRewriter | undefined;

  private readonly server: Server;
  private port = 0;

  private constructor(private target: string) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(target: string): Promise<RpcProxy> {
    const proxy = new RpcProxy(target);
    await listen(proxy.server, 0);
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async down(mode: DownMode = 'refuse'): Promise<void> {
    await this.switchTo(mode);
  }

  async up(): Promise<void> {
    await this.switchTo('up');
  }

  /** Forwards to another node from now on (a restarted devnet at a new URL). */
  retarget(target: string): void {
    this.target = target;
  }

  /** Answers matching requests itself (e.g. errors); undefined restores plain forwarding. */
  intercept(interceptor: RpcInterceptor | undefined): void {
    this.interceptor = interceptor;
  }

  /** Alters the node's answers to matching requests; undefined passes them on unchanged. */
  rewrite(rewriter: RpcRewriter | undefined): void {
    this.rewriter = rewriter;
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    if (this.mode !== 'refuse') await this.closeServer();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (this.mode === 'unavailable') return reply(response, { status: 503, body: 'unavailable' });
    const rpcRequest = parseRequest(body);
    if (rpcRequest) this.methods.push(rpcRequest.method);
    if (this.mode === 'hang') {
      this.held.add(response);
      return;
    }
    const intercepted = rpcRequest && this.interceptor?.(rpcRequest);
    if (intercepted === 'hang') {
      this.held.add(response);
      return;
    }
    if (intercepted) return reply(response, intercepted);

    const forwarded = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const answer = await forwarded.text();
    const rewritten = rpcRequest && forwarded.ok ? this.rewriter?.(rpcRequest, answer) : undefined;
    reply(response, { status: forwarded.status, body: rewritten ?? answer });
  }

  private async switchTo(next: DownMode | 'up'): Promise<void> {
    if (next === this.mode) return;
    for (const response of this.held) response.destroy();
    this.held.clear();
    if (this.mode === 'refuse') await listen(this.server, this.port);
    if (next === 'refuse') await this.closeServer();
    this.mode = next;
  }

  private async closeServer(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Open keep-alive connections would otherwise keep serving while the proxy is "down".
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/** A JSON-RPC error reply, as a node sends it (HTTP 200). */
export function rpcErrorReply(request: JsonRpcRequest, code: number, message: string): ProxyReply {
  return {
    status: 200,
    body: JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code, message } }),
  };
}

/** A JSON-RPC success reply carrying any result, e.g. a malformed one. */
export function rpcResultReply(request: JsonRpcRequest, result: unknown): ProxyReply {
  return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result }) };
}

function parseRequest(body: string): JsonRpcRequest | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<JsonRpcRequest>;
    return typeof parsed.method === 'string' ? (parsed as JsonRpcRequest) : undefined;
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, { status, body }: ProxyReply): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
