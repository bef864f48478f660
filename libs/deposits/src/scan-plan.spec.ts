import {
  ChainAdapter,
  ChainError,
  MAINNET_NETWORKS,
  NotYetError,
  TokenTransfer,
} from '@app/chains';
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
  /** Blocks whose header says they may hold a transfer (absent: every block with one does). */
  mayHold = new Set<number>();
  /** Where the node answering eth_getLogs stops, without saying so (a lagging backend). */
  logsCutAt: number | undefined;
  /** Where the node answering eth_getLogs has its head: a range beyond it is "not yet". */
  logsHead: number | undefined;
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
        return hash === null ? null : { hash, parentHash, logsBloom: `bloom ${height}` };
      },
      mayHoldTransfers: (link) => {
        const height = Number(link.logsBloom?.split(' ')[1]);
        return this.mayHold.has(height) || this.transfers.has(height);
      },
      scanTransfers: async (from: number, to: number) => {
        this.calls.push(`logs ${from}-${to}`);
        if (this.logsHead !== undefined && to > this.logsHead) {
          throw new NotYetError(`block ${to} is beyond the head`, 'ETHEREUM');
        }
        const found: TokenTransfer[] = [];
        for (let h = from; h <= Math.min(to, this.logsCutAt ?? to); h++) {
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
    await expect(plan(chain, state)).rejects.toThrow(NotYetError);
  });

  it('a head behind the cursor is "not yet", not a failure', async () => {
    const chain = new FakeChain(101);
    const state = stateAt(chain, 100, 3);
    chain.hashes.length = 95;
    await expect(plan(chain, state)).rejects.toThrow(NotYetError);
  });

  it('stops below a block the node lacks, keeping what it read under it', async () => {
    const chain = new FakeChain(111);
    const state = stateAt(chain, 100, 3);
    const below = chain.pay(103, '0x00000000000000000000000000000000000000cc');
    chain.pay(108, '0x00000000000000000000000000000000000000dd');
    // A lagging backend answered for 106: it does not have it. 107 and up are read, not kept.
    const hash106 = chain.hashes[106];
    const adapter = chain.adapter();
    const getBlockLink = adapter.getBlockLink.bind(adapter);
    adapter.getBlockLink = async (height) => (height === 106 ? null : getBlockLink(height));
    const result = await planScan({
      adapter,
      head: 110,
      state,
      confirmations: 3,
      contracts: [CONTRACT],
      openHeights: [108],
    });
    expect(result).toMatchObject({ scanFrom: 101, scanTo: 105, waiting: true });
    expect(result.found).toEqual([below]);
    expect([...result.remember.keys()]).toEqual([101, 102, 103, 104, 105]);
    // Nothing above the cut is judged: an open transfer there waits for a tick that reads it.
    expect(result.canonical.has(108)).toBe(false);
    expect(hash106).toBe('a106');
  });

  it('does not take an empty logs answer for blocks that may hold transfers (a cut answer)', async () => {
    const chain = new FakeChain(111);
    const state = stateAt(chain, 100, 3);
    chain.pay(102, '0x00000000000000000000000000000000000000cc');
    const late = chain.pay(107, '0x00000000000000000000000000000000000000dd');
    // The backend answering eth_getLogs is at 104: 107's payment is missing from its answer.
    chain.logsCutAt = 104;
    const cut = await plan(chain, state);
    expect(cut).toMatchObject({ scanTo: 106, waiting: true });
    expect(cut.found).not.toContainEqual(late);
    // A block whose header may hold one, with no transfer in the answer at or above it, neither.
    chain.logsCutAt = undefined;
    chain.mayHold.add(109);
    const falsePositive = await plan(chain, state);
    expect(falsePositive).toMatchObject({ scanTo: 108, waiting: true });
    expect(falsePositive.found).toContainEqual(late);
    // A transfer above it in the same answer proves the node had it.
    chain.pay(110, '0x00000000000000000000000000000000000000ee');
    await expect(plan(chain, state)).resolves.toMatchObject({ scanTo: 110, waiting: false });
  });

  it('keeps the ranges answered below one the node does not have yet', async () => {
    const chain = new FakeChain(1200);
    const state = stateAt(chain, 100, 3);
    chain.logsHead = 1000;
    const result = await plan(chain, state);
    expect(result).toMatchObject({ scanFrom: 101, scanTo: 600, waiting: true });
    chain.logsHead = 300;
    await expect(plan(chain, state)).rejects.toThrow(NotYetError);
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
