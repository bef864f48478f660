import { BlockHeader, BlockReceipt, EvmPayoutTransport } from '@app/chains';
import { BlocksRead } from './blocks-read';

const hash = (label: string) => `0x${Buffer.from(label).toString('hex').padEnd(64, '0')}`;

/**
 * A chain as a node behind a load balancer shows it: blocks by number (a branch can be swapped
 * in), a head that may lag, and blocks or receipts it may not have. Counts each call.
 */
class FakeChain {
  head = 0;
  /** Blocks above this are unknown to the node (a backend behind); Infinity: none. */
  hasUpTo = Infinity;
  receiptsMissing = false;
  readonly calls = { head: 0, header: 0, receipts: 0, byHash: 0 };
  /** Blocks read by hash answer null (a backend without them). */
  byHashMissing = false;
  private readonly byNumber = new Map<number, BlockHeader>();
  private readonly byHash = new Map<string, BlockHeader>();
  private readonly receipts = new Map<string, BlockReceipt & { blockHash: string }>();

  constructor() {
    this.mine(0, []);
  }

  /** Mines block `number` on `branch` with these transactions (reverted if named in `reverted`). */
  mine(number: number, txs: string[], branch = 'main', reverted: string[] = []): BlockHeader {
    const parent = this.byNumber.get(number - 1);
    const header: BlockHeader = {
      number,
      hash: hash(`${branch}-${number}`),
      parentHash: parent?.hash ?? hash(`genesis-${number - 1}`),
      transactionHashes: txs,
    };
    this.byNumber.set(number, header);
    this.byHash.set(header.hash, header);
    for (const txHash of txs) {
      this.receipts.set(txHash, {
        txHash,
        blockHash: header.hash,
        succeeded: !reverted.includes(txHash),
        feeBaseUnits: 21_000n,
      });
    }
    this.head = Math.max(this.head, number);
    return header;
  }

  readonly transport = {
    headBlockNumber: async () => {
      this.calls.head += 1;
      return Math.min(this.head, this.hasUpTo);
    },
    blockHeader: async (number: number) => {
      this.calls.header += 1;
      return number > this.hasUpTo ? null : (this.byNumber.get(number) ?? null);
    },
    blockHeaderByHash: async (blockHash: string, number: number) => {
      this.calls.byHash += 1;
      const header = this.byHashMissing ? undefined : this.byHash.get(blockHash);
      return header?.number === number ? header : null;
    },
    receiptsIn: async (block: BlockHeader, txHashes: string[]) => {
      if (!txHashes.length) return new Map<string, BlockReceipt>();
      this.calls.receipts += 1;
      if (this.receiptsMissing || block.number > this.hasUpTo) return null;
      const found = new Map<string, BlockReceipt>();
      for (const txHash of txHashes) {
        const receipt = this.receipts.get(txHash);
        if (!receipt || receipt.blockHash !== block.hash) return null;
        found.set(txHash, {
          txHash,
          succeeded: receipt.succeeded,
          feeBaseUnits: receipt.feeBaseUnits,
        });
      }
      return found;
    },
  } as unknown as EvmPayoutTransport;
}

const ours = (mine: string[]) => async (txHashes: string[]) =>
  new Set(txHashes.filter((txHash) => mine.includes(txHash)));

describe('BlocksRead', () => {
  const [a, b, c, other] = ['a', 'b', 'c', 'other'].map((label) => hash(`tx-${label}`));

  it('reads each new block once, receipts only where ours are, confirmations along the run', async () => {
    const chain = new FakeChain();
    for (let number = 1; number <= 5; number++) chain.mine(number, [hash(`filler-${number}`)]);
    const blocks = new BlocksRead(100);
    await blocks.advance(chain.transport, ours([a, b]));
    expect(blocks.top).toBe(5);
    expect(chain.calls.receipts).toBe(0);

    chain.mine(6, [a, other, b], 'main', [b]);
    chain.mine(7, [hash('filler-7')]);
    await blocks.advance(chain.transport, ours([a, b]));
    expect(chain.calls).toEqual({ head: 2, header: 8, receipts: 1, byHash: 0 });
    expect(blocks.mined(a)).toEqual({
      state: 'mined',
      status: { blockNumber: 6, blockHash: hash('main-6'), succeeded: true, confirmations: 2 },
      feeBaseUnits: 21_000n,
    });
    expect(blocks.mined(b)?.status.succeeded).toBe(false);
    expect(blocks.mined(other)).toBeNull();

    // Nothing new: one head read, no block read again.
    await blocks.advance(chain.transport, ours([a, b]));
    expect(chain.calls).toEqual({ head: 3, header: 8, receipts: 1, byHash: 0 });
    chain.mine(8, []);
    await blocks.advance(chain.transport, ours([a, b]));
    expect(blocks.mined(a)?.status.confirmations).toBe(3);
  });

  it('proves nothing from a backend without the block or its receipts, and reads it later', async () => {
    const chain = new FakeChain();
    chain.mine(1, []);
    const blocks = new BlocksRead(100);
    await blocks.advance(chain.transport, ours([a]));
    chain.mine(2, [a]);
    chain.mine(3, []);
    chain.receiptsMissing = true;
    await blocks.advance(chain.transport, ours([a]));
    // Block 2 not read (its receipt missing), nor anything after it: the run stays whole.
    expect(blocks.top).toBe(1);
    expect(blocks.mined(a)).toBeNull();

    chain.receiptsMissing = false;
    chain.hasUpTo = 1;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(1);
    expect(blocks.mined(a)).toBeNull();

    chain.hasUpTo = Infinity;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(3);
    expect(blocks.mined(a)?.status).toMatchObject({ blockNumber: 2, confirmations: 2 });
  });

  it('drops what another branch replaced, and keeps no receipt of a block it no longer holds', async () => {
    const chain = new FakeChain();
    chain.mine(1, []);
    const blocks = new BlocksRead(100);
    await blocks.advance(chain.transport, ours([a, b]));
    chain.mine(2, [a]);
    chain.mine(3, []);
    await blocks.advance(chain.transport, ours([a, b]));
    expect(blocks.mined(a)?.status.blockHash).toBe(hash('main-2'));

    // A reorg from block 2: a is gone, b is in the new block 3.
    chain.mine(2, [], 'fork');
    chain.mine(3, [b], 'fork');
    chain.mine(4, [], 'fork');
    // Block 4's parent is not the block 3 held: one look steps back to where the branches part
    // (block 2's parent is the block 1 held) and reads the new branch on from there.
    await blocks.advance(chain.transport, ours([a, b]));
    expect(blocks.top).toBe(4);
    expect(blocks.mined(a)).toBeNull();
    expect(blocks.mined(b)?.status).toMatchObject({
      blockNumber: 3,
      blockHash: hash('fork-3'),
      confirmations: 2,
    });
  });

  it('drops the blocks above a head whose block is not the one held (a chain that changed under us)', async () => {
    const chain = new FakeChain();
    chain.mine(1, []);
    const blocks = new BlocksRead(100);
    await blocks.advance(chain.transport, ours([a]));
    chain.mine(2, [a]);
    chain.mine(3, []);
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.mined(a)).not.toBeNull();

    // A lagging backend of the same chain: nothing dropped.
    chain.hasUpTo = 2;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(3);
    expect(blocks.mined(a)?.status.confirmations).toBe(2);

    // The chain at height 2 is another one now, and its head stays below the run: one look, or
    // 29 in a row, could be a backend behind or on a lost fork; the 30th drops from 2 up.
    chain.mine(2, [], 'fork');
    for (let look = 2; look < 30; look++) await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(3);
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(1);
    expect(blocks.mined(a)).toBeNull();
  });

  it('is catching up while a head read lately is above the last block read', async () => {
    const chain = new FakeChain();
    const blocks = new BlocksRead(100);
    expect(blocks.catchingUp).toBe(false);
    chain.mine(1, []);
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.catchingUp).toBe(false);
    chain.mine(2, [a]);
    chain.mine(3, []);
    // A backend without block 2's receipt: the head says 3, the run stops at 1.
    chain.receiptsMissing = true;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.catchingUp).toBe(true);
    // A backend behind answers the head now: the head read before still counts.
    chain.hasUpTo = 1;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.catchingUp).toBe(true);
    chain.hasUpTo = Infinity;
    chain.receiptsMissing = false;
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.catchingUp).toBe(false);
    expect(blocks.mined(a)?.status.confirmations).toBe(2);
  });

  it('gives up a block no node answers whole after 30 looks, and reads on from the head', async () => {
    const chain = new FakeChain();
    chain.mine(1, []);
    const blocks = new BlocksRead(100);
    await blocks.advance(chain.transport, ours([a]));
    chain.mine(2, [a]);
    chain.mine(3, []);
    chain.receiptsMissing = true;
    for (let look = 1; look < 30; look++) {
      await blocks.advance(chain.transport, ours([a]));
      expect(blocks.catchingUp).toBe(true);
    }
    await blocks.advance(chain.transport, ours([a]));
    // Stuck: a's payout is looked up one by one again.
    expect(blocks.catchingUp).toBe(false);
    expect(blocks.top).toBe(1);
    chain.mine(4, []);
    await blocks.advance(chain.transport, ours([a]));
    expect(blocks.top).toBe(4);
    expect(blocks.catchingUp).toBe(false);
    expect(blocks.mined(a)).toBeNull();
  });

  it('may hold only transactions stored after its first block was read', async () => {
    const chain = new FakeChain();
    chain.mine(1, []);
    const blocks = new BlocksRead(3);
    expect(blocks.mayHold(50)).toBe(false);
    let clock = 100;
    const now = () => clock;
    await blocks.advance(chain.transport, ours([]), now);
    expect(blocks.mayHold(50)).toBe(false);
    expect(blocks.mayHold(150)).toBe(true);
    // The oldest blocks forgotten, the run starts with a block read later.
    clock = 200;
    for (let number = 2; number <= 4; number++) chain.mine(number, []);
    await blocks.advance(chain.transport, ours([]), now);
    expect(blocks.mayHold(150)).toBe(false);
    expect(blocks.mayHold(250)).toBe(true);
    // A head below every block held (a restarted chain), look after look: nothing held, nothing
    // it may hold.
    chain.hasUpTo = 0;
    for (let look = 0; look < 30; look++) await blocks.advance(chain.transport, ours([]), now);
    expect(blocks.top).toBeNull();
    expect(blocks.mayHold(250)).toBe(false);
  });

  it('holds at most `keep` blocks, forgetting the oldest receipts', async () => {
    const chain = new FakeChain();
    chain.mine(1, [a]);
    const blocks = new BlocksRead(3);
    await blocks.advance(chain.transport, ours([a, c]));
    expect(blocks.mined(a)).not.toBeNull();
    for (let number = 2; number <= 4; number++) chain.mine(number, number === 4 ? [c] : []);
    await blocks.advance(chain.transport, ours([a, c]));
    expect(blocks.mined(a)).toBeNull();
    expect(blocks.mined(c)?.status.confirmations).toBe(1);
  });

  describe("confirmed: a block one backend named, counted only where it is the run's (r8, F2)", () => {
    it('counts a block the run holds along the run, and no block of another hash at its height', async () => {
      const chain = new FakeChain();
      for (let number = 1; number <= 10; number++) chain.mine(number, []);
      const blocks = new BlocksRead(100);
      await blocks.advance(chain.transport, ours([]));
      // A backend stuck on a block that lost a fork at height 6, with a head far ahead elsewhere.
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 6, blockHash: hash('fork-6') }),
      ).toBeNull();
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 6, blockHash: hash('main-6') }),
      ).toBe(5);
      // Above the last block read: not read yet, nothing proven.
      chain.mine(11, []);
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 11, blockHash: hash('main-11') }),
      ).toBeNull();
      expect(chain.calls.byHash).toBe(0);
    });

    it('reads the ancestors below the run by hash, and proves nothing where a node lacks them', async () => {
      const chain = new FakeChain();
      for (let number = 1; number <= 40; number++) chain.mine(number, []);
      const blocks = new BlocksRead(100);
      // A first look reads the 16 blocks below the head: 24..40.
      await blocks.advance(chain.transport, ours([]));
      chain.byHashMissing = true;
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 20, blockHash: hash('main-20') }),
      ).toBeNull();
      chain.byHashMissing = false;
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 20, blockHash: hash('main-20') }),
      ).toBe(21);
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 20, blockHash: hash('fork-20') }),
      ).toBeNull();
      // Read once: 23, 22, 21, 20 by hash, and not again.
      expect(chain.calls.byHash).toBe(5);
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 22, blockHash: hash('main-22') }),
      ).toBe(19);
      expect(chain.calls.byHash).toBe(5);
    });

    it('keeps the blocks the run forgets as its ancestors, and forgets them with a new run', async () => {
      const chain = new FakeChain();
      chain.mine(1, []);
      const blocks = new BlocksRead(3);
      await blocks.advance(chain.transport, ours([]));
      for (let number = 2; number <= 6; number++) chain.mine(number, []);
      await blocks.advance(chain.transport, ours([]));
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 2, blockHash: hash('main-2') }),
      ).toBe(5);
      expect(chain.calls.byHash).toBe(0);
      // A chain that changed under us from block 1: the run starts again, its ancestors unknown.
      for (let number = 1; number <= 3; number++) chain.mine(number, [], 'fork');
      chain.hasUpTo = 3;
      for (let look = 0; look < 40 && blocks.top !== 3; look++) {
        await blocks.advance(chain.transport, ours([]));
      }
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 2, blockHash: hash('main-2') }),
      ).toBeNull();
      expect(
        await blocks.confirmed(chain.transport, { blockNumber: 2, blockHash: hash('fork-2') }),
      ).toBe(2);
    });
  });

  describe('a head below the run (review r8, F1)', () => {
    it('keeps the run, receipts and all, when a backend 20 blocks behind answers the head', async () => {
      const chain = new FakeChain();
      for (let number = 1; number <= 100; number++) chain.mine(number, number === 95 ? [a] : []);
      const blocks = new BlocksRead(1024);
      // A first look at the fresh backend reads 84..100.
      await blocks.advance(chain.transport, ours([a]), () => 1);
      expect(blocks.mined(a)?.status).toMatchObject({ blockNumber: 95, confirmations: 6 });
      expect(blocks.mayHold(2)).toBe(true);

      // The lagging backend answers: its head is 81, below every block held.
      chain.mine(101, []);
      chain.hasUpTo = 81;
      await blocks.advance(chain.transport, ours([a]), () => 2);
      expect(blocks.top).toBe(100);
      expect(blocks.mined(a)?.status).toMatchObject({ blockNumber: 95, confirmations: 6 });
      expect(blocks.mayHold(2)).toBe(true);

      // Back on the fresh backend: read on from 101, nothing read twice.
      chain.hasUpTo = Infinity;
      const headers = chain.calls.header;
      await blocks.advance(chain.transport, ours([a]), () => 3);
      expect(blocks.top).toBe(101);
      expect(chain.calls.header).toBe(headers + 1);
      expect(blocks.mined(a)?.status.confirmations).toBe(7);
    });

    it('keeps up with the chain behind a balancer over a backend stalled 20 blocks back', async () => {
      const chain = new FakeChain();
      for (let number = 1; number <= 100; number++) chain.mine(number, []);
      const blocks = new BlocksRead(1024);
      await blocks.advance(chain.transport, ours([a]));
      // Every other look answered by a backend stalled at 80; a block a look, ours at 110.
      for (let number = 101; number <= 140; number++) {
        chain.mine(number, number === 110 ? [a] : []);
        chain.hasUpTo = number % 2 ? 80 : Infinity;
        await blocks.advance(chain.transport, ours([a]));
        expect(blocks.top).not.toBeNull();
      }
      chain.hasUpTo = Infinity;
      await blocks.advance(chain.transport, ours([a]));
      expect(blocks.top).toBe(140);
      expect(blocks.mined(a)?.status).toMatchObject({ blockNumber: 110, confirmations: 31 });
    });

    it('is not cut back by a backend stuck on a block that lost a fork', async () => {
      const chain = new FakeChain();
      for (let number = 1; number <= 100; number++) chain.mine(number, []);
      const blocks = new BlocksRead(1024);
      await blocks.advance(chain.transport, ours([a]));
      const stuck = {
        ...chain.transport,
        headBlockNumber: async () => 100,
        blockHeader: async (number: number) =>
          number === 100
            ? { number, hash: hash('lost-100'), parentHash: hash('main-99'), transactionHashes: [] }
            : number < 100
              ? chain.transport.blockHeader(number)
              : null,
      } as EvmPayoutTransport;
      for (let number = 101; number <= 120; number++) {
        chain.mine(number, number === 105 ? [a] : []);
        const top = blocks.top!;
        await blocks.advance(number % 2 ? stuck : chain.transport, ours([a]));
        // Never cut back on that backend's word.
        expect(blocks.top).toBeGreaterThanOrEqual(top);
      }
      expect(blocks.top).toBe(120);
      expect(blocks.mined(a)?.status).toMatchObject({ blockNumber: 105, confirmations: 16 });
    });
  });
});

describe('BlocksRead on a fast chain whose run starts again (review r9a, N1)', () => {
  const h = (number: number) => `0x${number.toString(16).padStart(64, '0')}`;

  /**
   * R9a's sim-fastchain: 4 blocks a second (Arbitrum), a tick every `tickSeconds`, a payout
   * mined `outage` blocks below the head when the worker starts; each tick reads blocks and
   * asks for the payout's block, as lookUp does. The tick at which it is proven, or null.
   */
  async function provenAt(tickSeconds: number, outage: number, ticks: number, byHashOnly = false) {
    let head = 1_000_000;
    const mined = head - outage;
    const calls = { byNumber: 0, byHash: 0 };
    const blocks = new BlocksRead(1024);
    const header = (number: number) => ({
      number,
      hash: h(number),
      parentHash: h(number - 1),
      transactionHashes: [],
    });
    const transport = {
      headBlockNumber: async () => head,
      blockHeader: async (number: number) => {
        calls.byNumber += 1;
        // A backend that answers below the run by hash only: every batch is refused.
        if (byHashOnly && blocks.top !== null && number < blocks.top - 1_100) return null;
        return number > head ? null : header(number);
      },
      blockHeaderByHash: async (blockHash: string, number: number) => {
        calls.byHash += 1;
        return blockHash === h(number) && number <= head ? header(number) : null;
      },
      receiptsIn: async () => new Map<string, BlockReceipt>(),
    } as unknown as EvmPayoutTransport;
    for (let tick = 0; tick < ticks; tick++) {
      await blocks.advance(transport, ours([]), () => tick);
      const confirmations = await blocks.confirmed(transport, {
        blockNumber: mined,
        blockHash: h(mined),
      });
      if (confirmations !== null) return { tick, confirmations, head, calls };
      head += 4 * tickSeconds;
    }
    return null;
  }

  it.each([20, 25, 30, 40])(
    'proves a payout mined 2,000 blocks before the worker started, at ticks of %i s',
    async (tickSeconds) => {
      const proven = await provenAt(tickSeconds, 2_000, 300);
      expect(proven).not.toBeNull();
      // Counted along the chain: the blocks from it to the last one read.
      expect(proven!.confirmations).toBeGreaterThan(2_000);
    },
  );

  it('keeps what a run proved across its resets: a walk by hash only still gets there', async () => {
    // 64 reads by hash a look: the run starts again (MAX_BEHIND) every few ticks, and each new
    // walk joins the hashes the runs before it proved, where it reaches them with the same hash.
    const proven = await provenAt(40, 2_000, 600, true);
    expect(proven).not.toBeNull();
    expect(proven!.calls.byHash).toBeGreaterThan(0);
  });

  it('proves a payout mined just before a reset at ticks of 40 s', async () => {
    expect(await provenAt(40, 300, 300)).not.toBeNull();
  });

  it('proves nothing of a block with another hash at its height, however long it walks', async () => {
    let head = 10_000;
    const header = (number: number) => ({
      number,
      hash: h(number),
      parentHash: h(number - 1),
      transactionHashes: [],
    });
    const transport = {
      headBlockNumber: async () => head,
      blockHeader: async (number: number) => (number > head ? null : header(number)),
      blockHeaderByHash: async (blockHash: string, number: number) =>
        blockHash === h(number) ? header(number) : null,
      receiptsIn: async () => new Map<string, BlockReceipt>(),
    } as unknown as EvmPayoutTransport;
    const blocks = new BlocksRead(1024);
    for (let tick = 0; tick < 60; tick++) {
      await blocks.advance(transport, ours([]), () => tick);
      expect(
        await blocks.confirmed(transport, { blockNumber: 9_000, blockHash: hash('fork-9000') }),
      ).toBeNull();
      head += 160;
    }
    expect(
      await blocks.confirmed(transport, { blockNumber: 9_000, blockHash: h(9_000) }),
    ).not.toBeNull();
  });
});
