import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/*
 * An HTTP proxy in front of a java-tron node's HTTP API (the fake one), to make one URL of a
 * failover list misbehave the ways real TRON nodes do, while the node behind it stays the chain.
 */
export class TronProxy {
  /**
   * Set: the proxy plays a node stopped at this height. Its head is that block, and later blocks
   * read as java-tron answers for blocks it does not have ({} and []).
   */
  headCap: number | undefined;
  /** Set: block transaction infos from this height up get a 503 (a node failing under load). */
  failBlocksFrom: number | undefined;
  private readonly server: Server;

  private constructor(private readonly target: string) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
  }

  static async start(target: string): Promise<TronProxy> {
    const proxy = new TronProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://proxy').pathname;
    const text = await readBody(request);
    const num = blockNumberOf(text);
    const answer = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(body);
    };
    if (
      path === '/wallet/gettransactioninfobyblocknum' &&
      this.failBlocksFrom !== undefined &&
      num !== undefined &&
      num >= this.failBlocksFrom
    ) {
      return answer(503, 'Service Unavailable');
    }
    const cap = this.headCap;
    if (cap !== undefined && num !== undefined && num > cap) {
      if (path === '/wallet/getblockbynum') return answer(200, '{}');
      if (path === '/wallet/gettransactioninfobyblocknum') return answer(200, '[]');
    }
    const forwarded =
      cap !== undefined && path === '/wallet/getnowblock'
        ? await this.forward('/wallet/getblockbynum', JSON.stringify({ num: cap }))
        : await this.forward(path, text);
    answer(forwarded.status, await forwarded.text());
  }

  private forward(path: string, body: string): Promise<Response> {
    return fetch(`${this.target}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }
}

function blockNumberOf(text: string): number | undefined {
  try {
    const num = (JSON.parse(text) as { num?: unknown }).num;
    return typeof num === 'number' ? num : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
