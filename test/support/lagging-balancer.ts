import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/*
 * A JSON-RPC URL that behaves like a public provider's load balancer over two backends: a fresh
 * node and one `lagBlocks` behind it. Every public RPC URL is such a balancer (DESIGN.md section
 * 4): within a second the head is 140 while block 138 is null, a receipt is null and then mined,
 * a nonce moves backwards. Both backends are ONE real anvil node: the lagging one is the fresh
 * one's answers cut at H - lag (H the fresh head read at that moment), so they can never disagree
 * about anything but height, as real backends of one chain don't.
 */

export type BalancerMode = 'random' | 'alternate' | 'fresh' | 'lagging';
type Backend = 'fresh' | 'lagging';

interface RpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

/** A JSON-RPC answer: a result or an error, for one request. */
type Outcome = { result: unknown } | { error: { code: number; message: string } };

const HEIGHT_TAGS = new Set(['latest', 'safe', 'finalized', 'pending']);
// What geth answers for state at a block it does not have.
const HEADER_NOT_FOUND: Outcome = { error: { code: -32000, message: 'header not found' } };
// Methods reading state at a block: the position of the block parameter.
const STATE_BLOCK_PARAM: Record<string, number> = {
  eth_getTransactionCount: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getStorageAt: 2,
};

export class LaggingBalancer {
  lagBlocks: number;
  mode: BalancerMode;
  readonly answered = { fresh: 0, lagging: 0 };
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private random: () => number;
  private nextBackend: Backend = 'fresh';

  private constructor(
    private readonly target: string,
    options: { lagBlocks?: number; mode?: BalancerMode; seed?: number },
  ) {
    this.lagBlocks = options.lagBlocks ?? 6;
    this.mode = options.mode ?? 'random';
    this.random = mulberry32(options.seed ?? 1);
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(
    target: string,
    options: { lagBlocks?: number; mode?: BalancerMode; seed?: number } = {},
  ): Promise<LaggingBalancer> {
    const balancer = new LaggingBalancer(target, options);
    await new Promise<void>((resolve, reject) => {
      balancer.server.once('error', reject);
      balancer.server.listen(0, '127.0.0.1', () => resolve());
    });
    balancer.port = (balancer.server.address() as AddressInfo).port;
    return balancer;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
    // Each element of a batch to its own backend: balancers split batches too.
    const answer = Array.isArray(body)
      ? await Promise.all(body.map((one) => this.answer(one)))
      : await this.answer(body);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  }

  private async answer(request: RpcRequest): Promise<object> {
    const backend = this.pick();
    this.answered[backend] += 1;
    const outcome =
      backend === 'fresh'
        ? await this.node(request.method, request.params ?? [])
        : await this.lagging(request.method, request.params ?? []);
    return { jsonrpc: '2.0', id: request.id, ...outcome };
  }

  private pick(): Backend {
    if (this.mode === 'fresh' || this.mode === 'lagging') return this.mode;
    if (this.mode === 'random') return this.random() < 0.5 ? 'fresh' : 'lagging';
    const backend = this.nextBackend;
    this.nextBackend = backend === 'fresh' ? 'lagging' : 'fresh';
    return backend;
  }

  /** The answer of a node whose head is H - lag, from the fresh node's answers. */
  private async lagging(method: string, params: unknown[]): Promise<Outcome> {
    const head = Math.max(Number(await this.result('eth_blockNumber', [])) - this.lagBlocks, 0);
    if (method === 'eth_blockNumber') return { result: quantity(head) };
    if (method === 'eth_getBlockByNumber') {
      const [tag, full] = params;
      const number = await this.heightOf(tag, head);
      if (number === undefined) return this.node(method, params);
      return number > head ? { result: null } : this.node(method, [quantity(number), full]);
    }
    if (method === 'eth_getBlockByHash' || method === 'eth_getBlockReceipts') {
      const number = await this.heightOf(params[0], head);
      if (number !== undefined && number > head) return { result: null };
      // A tag ('latest') names the lagging head, not the node's.
      const tagged = typeof params[0] === 'string' && HEIGHT_TAGS.has(params[0]);
      return this.node(method, tagged ? [quantity(number as number), ...params.slice(1)] : params);
    }
    if (method === 'eth_getTransactionReceipt' || method === 'eth_getTransactionByHash') {
      const outcome = await this.node(method, params);
      if (!('result' in outcome) || outcome.result === null) return outcome;
      // A transaction only in the pool (no block) is not in this backend's pool either.
      const mined = heightIn(outcome.result, 'blockNumber');
      return mined === undefined || mined > head ? { result: null } : outcome;
    }
    if (method in STATE_BLOCK_PARAM) return this.stateAt(method, params, head);
    if (method === 'eth_getLogs') return this.logsUpTo(params, head);
    // Fees, chain id, sendRawTransaction (a lagging backend still propagates transactions)...
    return this.node(method, params);
  }

  /** State at 'latest'/'pending'/no tag is the lagging head's; above it, geth's error. */
  private async stateAt(method: string, params: unknown[], head: number): Promise<Outcome> {
    const position = STATE_BLOCK_PARAM[method];
    const number = await this.heightOf(params[position], head);
    if (number !== undefined && number > head) return HEADER_NOT_FOUND;
    const block = number === undefined ? params[position] : quantity(number);
    const forwarded = [...params.slice(0, position), block];
    return this.node(method, forwarded);
  }

  /** toBlock cut to the lagging head without saying so, as nodes do. */
  private async logsUpTo(params: unknown[], head: number): Promise<Outcome> {
    const filter = { ...(params[0] as Record<string, unknown>) };
    if (typeof filter.blockHash === 'string') {
      const number = await this.heightOf(filter.blockHash, head);
      return number === undefined || number > head
        ? { result: [] }
        : this.node('eth_getLogs', [filter]);
    }
    const from = (await this.heightOf(filter.fromBlock ?? 'latest', head)) ?? 0;
    const to = (await this.heightOf(filter.toBlock ?? 'latest', head)) ?? head;
    if (from > head) return { result: [] };
    filter.fromBlock = quantity(from);
    filter.toBlock = quantity(Math.min(to, head));
    return this.node('eth_getLogs', [filter]);
  }

  /**
   * The height a block parameter names, for the lagging backend: a tag of the head is its head
   * (or the fresh node's block, if lower: 'safe' and 'finalized'), a hash is its block's number
   * (undefined if the node has no such block). Undefined for a parameter that needs no cut.
   */
  private async heightOf(block: unknown, head: number): Promise<number | undefined> {
    if (block === undefined) return head;
    if (typeof block === 'object' && block !== null) {
      const named = block as { blockNumber?: unknown; blockHash?: unknown };
      return this.heightOf(named.blockNumber ?? named.blockHash, head);
    }
    if (typeof block !== 'string') return undefined;
    if (block === 'latest' || block === 'pending') return head;
    if (HEIGHT_TAGS.has(block)) {
      const tagged = await this.result('eth_getBlockByNumber', [block, false]);
      return Math.min(heightIn(tagged, 'number') ?? head, head);
    }
    if (block === 'earliest') return 0;
    if (block.length === 66) {
      const found = await this.result('eth_getBlockByHash', [block, false]);
      return heightIn(found, 'number');
    }
    return Number(block);
  }

  private async result(method: string, params: unknown[]): Promise<unknown> {
    const outcome = await this.node(method, params);
    if ('error' in outcome) throw new Error(`${method}: ${outcome.error.message}`);
    return outcome.result;
  }

  /** The real node's answer. */
  private async node(method: string, params: unknown[]): Promise<Outcome> {
    const response = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const { result, error } = (await response.json()) as {
      result?: unknown;
      error?: { code: number; message: string };
    };
    return error ? { error } : { result };
  }
}

/** The height a block (`number`), receipt or transaction (`blockNumber`) names, if any. */
function heightIn(value: unknown, field: 'number' | 'blockNumber'): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const height = (value as Record<string, unknown>)[field];
  return typeof height === 'string' ? Number(height) : undefined;
}

function quantity(value: number): string {
  return `0x${value.toString(16)}`;
}

/** A small seeded PRNG: a 'random' balancer replays the same choices for the same seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
