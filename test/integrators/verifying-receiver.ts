import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookEvent } from '@stablecoin-payments/sdk';

/**
 * The integrator's webhook endpoint: a real HTTP server on loopback that checks every delivery
 * with the SDK's `verifyWebhook` (as an integrator's handler would, on the raw body) and keeps
 * each event once (deliveries are at least once: duplicates are counted, not kept).
 */
export class VerifyingReceiver {
  /** Each verified event once, in the order its first delivery arrived. */
  readonly events: WebhookEvent[] = [];
  /** Deliveries whose signature did not verify (answered 400): must stay empty. */
  readonly refused: string[] = [];
  duplicates = 0;
  private readonly seen = new Set<string>();
  private secret: string | null = null;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<VerifyingReceiver> {
    const server = createServer();
    const receiver = new VerifyingReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        try {
          if (receiver.secret === null) throw new Error('no secret yet');
          receiver.accept(verifyWebhook(body, request.headers, receiver.secret));
          response.writeHead(200).end('ok');
        } catch (error) {
          receiver.refused.push(`${(error as Error).message}: ${body.toString('utf8', 0, 200)}`);
          response.writeHead(400).end('bad signature');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** The endpoint's `whsec_` secret, known once the endpoint is created. */
  useSecret(secret: string): void {
    this.secret = secret;
  }

  /** The events of one object, ordered by `sequence` (the wire does not promise an order). */
  eventsOf(objectId: string): WebhookEvent[] {
    return this.events
      .filter((event) => objectIdOf(event) === objectId)
      .sort((a, b) => a.sequence - b.sequence);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(event: WebhookEvent): void {
    if (this.seen.has(event.id)) {
      this.duplicates++;
      return;
    }
    this.seen.add(event.id);
    this.events.push(event);
  }
}

export function objectIdOf(event: WebhookEvent): string {
  return (event.data.object as { id: string }).id;
}
