import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (signatures are over these bytes). */
  body: string;
  receivedAt: number;
}

/**
 * How the receiver answers one request, after `delayMs` if given (a slow receiver); `hang` keeps
 * the request open until the receiver stops.
 */
export type Reply =
  { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

/**
 * A real HTTP receiver on loopback that records every request and answers as the test says
 * (by default 200), independent of the service's code.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private replies: Array<(request: ReceivedWebhook) => Reply> = [];
  private fallback: (request: ReceivedWebhook) => Reply = () => ({ status: 200, body: 'ok' });
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const webhook: ReceivedWebhook = {
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        receiver.received.push(webhook);
        const reply = (receiver.replies.shift() ?? receiver.fallback)(webhook);
        if (reply === 'hang') {
          receiver.hanging.add(response);
          return;
        }
        const answer = () => {
          receiver.hanging.delete(response);
          if (response.destroyed) return;
          response.writeHead(reply.status, reply.headers ?? {});
          response.end(reply.body ?? '');
        };
        if (!reply.delayMs) return answer();
        receiver.hanging.add(response);
        setTimeout(answer, reply.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers the next requests in order, then falls back to the default. */
  replyNext(...replies: Reply[]): void {
    this.replies.push(...replies.map((reply) => () => reply));
  }

  replyAlways(reply: Reply): void {
    this.fallback = () => reply;
  }

  /** What was received for one event (by its webhook-id). */
  forEvent(eventId: string): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.headers['webhook-id'] === eventId);
  }

  events(): Array<{
    id: string;
    type: string;
    sequence: number;
    data: { object: { id: string } };
  }> {
    return this.received.map((webhook) => JSON.parse(webhook.body));
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
