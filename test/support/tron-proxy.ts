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
  /**
   * Set: the proxy plays a load balancer over the node and a backend `blocks` behind it, each
   * request answered by the lagging one with probability `share` (TronGrid behaves so).
   */
  lagging: { blocks: number; share: number } | undefined;
  /**
   * Heights at which /wallet/getblockbynum answers another block (a backend still on a fork
   * there); the solidity API (/walletsolidity) answers the chain's.
   */
  readonly forkedHeights = new Set<number>();
  /**
   * Set: transaction infos of blocks from this height up read as a node's that lacks them ([]),
   * while the head and the blocks come from the node (another backend of one URL).
   */
  infosMissingFrom: number | undefined;
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
    if (
      path === '/wallet/gettransactioninfobyblocknum' &&
      num !== undefined &&
      this.infosMissingFrom !== undefined &&
      num >= this.infosMissingFrom
    ) {
      return answer(200, '[]');
    }
    if (path === '/wallet/getblockbynum' && num !== undefined && this.forkedHeights.has(num)) {
      const block = JSON.parse(await (await this.forward(path, text)).text()) as {
        blockID?: string;
      };
      if (block.blockID) block.blockID = block.blockID.slice(0, 16) + 'f'.repeat(48);
      return answer(200, JSON.stringify(block));
    }
    if (this.lagging && Math.random() < this.lagging.share) {
      return this.answerLagging(path, text, num, answer);
    }
    const cap = this.headCap;
    if (cap !== undefined && num !== undefined && num > cap) {
      if (path === '/wallet/getblockbynum' || path === '/walletsolidity/getblockbynum') {
        return answer(200, '{}');
      }
      if (path === '/wallet/gettransactioninfobyblocknum') return answer(200, '[]');
    }
    const forwarded =
      cap !== undefined && path === '/wallet/getnowblock'
        ? await this.forward('/wallet/getblockbynum', JSON.stringify({ num: cap }))
        : await this.forward(path, text);
    answer(forwarded.status, await forwarded.text());
  }

  /**
   * As a node whose head is `lagging.blocks` below the real one: later blocks are missing, a
   * transaction mined in one is unknown, its pool holds nothing it was not sent itself.
   */
  private async answerLagging(
    path: string,
    text: string,
    num: number | undefined,
    answer: (status: number, body: string) => void,
  ): Promise<void> {
    const head = await this.headNumber();
    const lagHead = Math.max(0, head - this.lagging!.blocks);
    const block = async (number: number) =>
      (await this.forward('/wallet/getblockbynum', JSON.stringify({ num: number }))).text();
    if (path === '/wallet/getnowblock') return answer(200, await block(lagHead));
    if (path === '/walletsolidity/getnowblock') {
      const solid = JSON.parse(await (await this.forward(path, text)).text()) as BlockJson;
      const number = solid.block_header?.raw_data?.number ?? 0;
      return answer(200, number > lagHead ? await block(lagHead) : JSON.stringify(solid));
    }
    if (num !== undefined && num > lagHead) {
      if (path === '/wallet/getblockbynum' || path === '/walletsolidity/getblockbynum') {
        return answer(200, '{}');
      }
      if (path === '/wallet/gettransactioninfobyblocknum') return answer(200, '[]');
    }
    if (path === '/wallet/gettransactioninfobyid') {
      const info = JSON.parse(await (await this.forward(path, text)).text()) as {
        blockNumber?: number;
      };
      const known = info.blockNumber !== undefined && info.blockNumber <= lagHead;
      return answer(200, known ? JSON.stringify(info) : '{}');
    }
    if (path === '/wallet/gettransactionbyid') {
      // Mined at or below its head, it has it; a pool transaction or a later one it lacks.
      const info = JSON.parse(
        await (await this.forward('/wallet/gettransactioninfobyid', text)).text(),
      ) as { blockNumber?: number };
      if (info.blockNumber === undefined || info.blockNumber > lagHead) return answer(200, '{}');
    }
    const forwarded = await this.forward(path, text);
    answer(forwarded.status, await forwarded.text());
  }

  private async headNumber(): Promise<number> {
    const head = JSON.parse(
      await (await this.forward('/wallet/getnowblock', '{}')).text(),
    ) as BlockJson;
    return head.block_header?.raw_data?.number ?? 0;
  }

  private forward(path: string, body: string): Promise<Response> {
    return fetch(`${this.target}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }
}

interface BlockJson {
  block_header?: { raw_data?: { number?: number } };
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
