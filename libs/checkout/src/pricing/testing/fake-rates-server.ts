import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/**
 * TEST DOUBLE: an HTTP rates source (what FX_RATES_URL points at) on 127.0.0.1, port 0. It
 * answers GET with the document it was given, or misbehaves as told: an HTTP status, no answer
 * at all (hang), or a closed port (stop, then start again on the same port).
 */
export class FakeRatesServer {
  /** Paths (with query) of the requests that arrived, in order. */
  readonly requests: string[] = [];
  private body = '{}';
  private status = 200;
  private hanging = false;
  private readonly held = new Set<ServerResponse>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  constructor() {
    this.server = createServer((request, response) => this.handle(request, response));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** A URL carrying a pretend API key, as hosted FX APIs take it. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1/rates?access_key=SECRET-FX-KEY`;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.url;
  }

  /** Serves `{as_of, usd_per_unit}` with as_of this many seconds ago. */
  serveRates(usdPerUnit: Record<string, string>, ageSeconds = 0): void {
    const asOf = new Date(Date.now() - ageSeconds * 1000).toISOString();
    this.serve(JSON.stringify({ as_of: asOf, usd_per_unit: usdPerUnit }));
  }

  serve(body: string, status = 200): void {
    this.body = body;
    this.status = status;
    this.hanging = false;
  }

  /** Accepts requests and never answers them. */
  hang(): void {
    this.hanging = true;
  }

  /** Closes the port: connections are refused until start() again. */
  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.held.clear();
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push(request.url ?? '');
    request.resume();
    if (this.hanging) {
      this.held.add(response);
      return;
    }
    response.writeHead(this.status, { 'content-type': 'application/json' });
    response.end(this.body);
  }
}
