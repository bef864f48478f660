import { ChainAdapter, ChainError, MAINNET_NETWORKS, TokenTransfer } from '@app/chains';
import { CursorState } from './chain-cursors.repository';
import { planScan, watchedDepth } from './scan-plan';

const CONTRACT = MAINNET_NETWORKS.ETHEREUM.tokens.USDT?.contract as string;

/** A chain in memory: hashes per height ("a5" = fork a, height 5), transfers per height. */
class FakeChain {
  hashes: Array<string | null> = [];
  transfers = new Map<number, TokenTransfer[]>();
  /** The hash a log reports for its block, when it should disagree with getBlockHash. */
  logHashOverride = new Map<number, string>();
  /** The parent a block names, when it should not be the block below it (another fork's). */
  parentOverride = new Map<number, string>();
  readonly calls: string[] = [];

  constructor(length: number, fork = 'a') {
    this.hashes = Array.from({ length }, (_, height) => `${fork}${height}`);
  }

  /** Replaces every block from `height` up with fork `fork`, `length` blocks long in total. */
  reorg(height: number, fork: string, length = this.hashes.length): void {
    for (let h = height; h < length; h++) this.hashes[h] = `${fork}${h}`;
  }

  pay(height: number, to: string): TokenTransfer {
    const transfer: TokenTransfer = {
      tokenContract: CONTRACT,
      from: '0x0000000000000000000000000000000000000001',
      to,
      amountBaseUnits: 1_000_000n,
      txHash: `0x${height.toString(16).padStart(64, '0')}`,
      logIndex: 0,
      blockNumber: height,
      blockHash: this.hashes[height] as string,
    };
    this.transfers.set(height, [...(this.transfers.get(height) ?? []), transfer]);
    return transfer;
  }

  adapter(): ChainAdapter {
    return {
      network: MAINNET_NETWORKS.ETHEREUM,
      maxScanRange: 500,
      isValidAddress: () => true,
      deriveAddress: () => '',
      followHeads: () => null,
      preferNextProvider: () => undefined,
      getHeadBlockNumber: async () => this.hashes.length - 1,
      getBlockHash: async () => {
        throw new Error('the plan reads blocks with getBlockLink');
      },
      getBlockLink: async (height: number) => {
        this.calls.push(`hash ${height}`);
        const hash = this.hashes[height] ?? null;
        const parentHash = this.parentOverride.get(height) ?? this.hashes[height - 1] ?? null;
        return hash === null ? null : { hash, parentHash };
      },
      scanTransfers: async (from: number, to: number) => {
        this.calls.push(`logs ${from}-${to}`);
        const found: TokenTransfer[] = [];
        for (let h = from; h <= to; h++) {
          for (const transfer of this.transfers.get(h) ?? []) {
            found.push({
              ...transfer,
              blockHash: this.logHashOverride.get(h) ?? (this.hashes[h] as string),
            });
          }
        }
        return found;
      },
      getTransactionStatus: async () => null,
      getTokenDecimals: async () => 6,
      close: async () => undefined,
    };
  }
}

/** The cursor as a tick over `chain` up to `cursor` would have left it. */
function stateAt(chain: FakeChain, cursor: number, confirmations: number): CursorState {
  const blocks = new Map<number, string>();
  for (let h = Math.max(cursor - watchedDepth(confirmations) + 1, 0); h <= cursor; h++) {
    blocks.set(h, chain.hashes[h] as string);
  }
  return { lastScannedBlock: cursor, version: 7, blocks };
}

const plan = (
  chain: FakeChain,
  state: CursorState,
  confirmations = 3,
  openHeights: number[] = [],
) =>
  planScan({
    adapter: chain.adapter(),
    head: chain.hashes.length - 1,
    state,
    confirmations,
    contracts: [CONTRACT],
    openHeights,
  });

describe('planScan', () => {
  it('without a reorg: one hash for the tip, then scans the new blocks and the trailing window', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 98, 3);
    chain.calls.length = 0;
    const result = await plan(chain, state);
    expect(result).toMatchObject({ forkPoint: 98, deepReorg: false, scanFrom: 98, scanTo: 100 });
    expect(chain.calls).toEqual(['hash 98', 'logs 98-100', 'hash 99', 'hash 100']);
    expect(result.remember.get(100)).toBe('a100');
    expect(result.version).toBe(7);
  });

  it("asks for the new blocks' hashes while the logs are on their way, not after", async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 98, 3);
    const adapter = chain.adapter();
    let askedMeanwhile: string[] = [];
    const scanTransfers = adapter.scanTransfers.bind(adapter);
    adapter.scanTransfers = async (from, to, contracts) => {
      const answer = await scanTransfers(from, to, contracts);
      // A node's answer takes a while: what else was asked before it came.
      await new Promise((resolve) => setImmediate(resolve));
      askedMeanwhile = chain.calls.filter((call) => call !== 'hash 98' && call.startsWith('hash'));
      return answer;
    };
    chain.calls.length = 0;
    await planScan({
      adapter,
      head: 100,
      state,
      confirmations: 3,
      contracts: [CONTRACT],
      openHeights: [],
    });
    expect(askedMeanwhile).toEqual(['hash 99', 'hash 100']);
  });

  it('finds the fork point below a reorged tip and rescans from just above it', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 100, 3);
    chain.reorg(91, 'b', 103);
    const moved = chain.pay(92, '0x00000000000000000000000000000000000000aa');
    const result = await plan(chain, state);
    expect(result).toMatchObject({ forkPoint: 90, deepReorg: false, scanFrom: 91, scanTo: 102 });
    expect(result.found).toEqual([moved]);
    expect(result.canonical.get(95)).toBe('b95');
  });

  it('says so when no remembered block is still on the chain (deeper than the window)', async () => {
    const chain = new FakeChain(200);
    const state = stateAt(chain, 199, 3);
    chain.reorg(100, 'c', 201);
    const result = await plan(chain, state);
    const lowest = 199 - watchedDepth(3) + 1;
    expect(result).toMatchObject({ forkPoint: lowest - 1, deepReorg: true, scanFrom: lowest });
  });

  it('skips the tick when the node is behind the cursor', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 100, 3);
    chain.hashes.length = 81;
    await expect(plan(chain, state)).rejects.toThrow(ChainError);
    await expect(plan(chain, state)).rejects.toMatchObject({ kind: 'transient' });
  });

  it('skips the tick when a block it needs is missing (null), never calling it changed', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 100, 3);
    chain.hashes[100] = null;
    await expect(plan(chain, state)).rejects.toThrow(/no block 100/);
  });

  it('skips the tick when a log names another block than the one read at its height', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 99, 3);
    chain.pay(100, '0x00000000000000000000000000000000000000bb');
    chain.logHashOverride.set(100, 'x100');
    await expect(plan(chain, state)).rejects.toThrow(/changed while it was read/);
  });

  it('skips the tick when the blocks read do not chain up (answers from two forks)', async () => {
    const chain = new FakeChain(106);
    const state = stateAt(chain, 100, 3);
    // A load-balanced backend on another fork answered for block 103: 104 names another parent.
    chain.parentOverride.set(104, 'b103');
    await expect(plan(chain, state)).rejects.toThrow(/block 104 does not follow block 103/);
    // The first block read must follow the remembered tip as well.
    chain.parentOverride.clear();
    chain.parentOverride.set(101, 'b100');
    await expect(plan(chain, state)).rejects.toMatchObject({ kind: 'transient' });
    chain.parentOverride.clear();
    await expect(plan(chain, state)).resolves.toMatchObject({ scanTo: 105 });
  });

  it('reads the hash of every open transfer above the fork point, trusting those below it', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 100, 3);
    chain.reorg(95, 'd');
    chain.calls.length = 0;
    const result = await plan(chain, state, 3, [20, 90, 97]);
    expect(result.forkPoint).toBe(94);
    expect(result.canonical.get(97)).toBe('d97');
    expect(result.canonical.get(90)).toBe('a90');
    // 20 is below the remembered window: read, not trusted.
    expect(chain.calls).toContain('hash 20');
    expect(chain.calls).not.toContain('hash 90');
  });

  it('trusts nothing remembered when the cursor is new (no remembered tip)', async () => {
    const chain = new FakeChain(101);
    const state: CursorState = { lastScannedBlock: 98, version: 0, blocks: new Map() };
    const result = await plan(chain, state, 3, [60]);
    expect(result).toMatchObject({ forkPoint: 98, deepReorg: false });
    expect(result.canonical.get(60)).toBe('a60');
  });
});
