import { Logger } from '@nestjs/common';
import { keccak256, Transaction, Wallet } from 'ethers';
import type { EntityManager } from 'typeorm';
import type { SignedTransfer } from '@app/chains';
import type { PayoutEvents } from '../payout-events';
import type { PayoutRecord } from '../payout.types';
import { EvmPayoutTracking } from './evm-payout-tracking';
import { PayoutJournalRepository } from './payout-journal.repository';
import { PayoutTracker } from './payout-tracker';

async function signed(maxFeePerGas: bigint): Promise<{ raw: string; hash: string }> {
  const raw = await new Wallet(`0x${'11'.repeat(32)}`).signTransaction(
    Transaction.from({
      type: 2,
      chainId: 31337,
      nonce: 7,
      to: `0x${'22'.repeat(20)}`,
      value: 0n,
      gasLimit: 60_000n,
      maxFeePerGas,
      maxPriorityFeePerGas: 1n,
    }),
  );
  return { raw, hash: keccak256(raw) };
}

describe('PayoutTracker: a hash mismatch holds only its payout (review r9a, N6)', () => {
  it("logs an error for that payout and lets the tick go on with the network's others", async () => {
    const [first, second] = [await signed(10n), await signed(12n)];
    const journal = new PayoutJournalRepository(
      {} as never,
      { statusChanged: jest.fn() } as unknown as PayoutEvents,
    );
    const manager = { query: jest.fn(async () => [{}]) };
    const payout = { id: 'po_1', network: 'ETHEREUM', status: 'Processing' } as PayoutRecord;
    // A replacement whose bytes are another transaction's (a signing bug), as replaceEvm stores it.
    const replace = () =>
      journal
        .insertAttempt(manager as unknown as EntityManager, payout, `0x${'33'.repeat(20)}`, {
          rawTransaction: second.raw,
          txHash: first.hash,
          nonce: 7,
          fees: null,
          gasLimit: null,
        } as unknown as SignedTransfer)
        .then(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const tracker = Object.create(PayoutTracker.prototype) as PayoutTracker;
    Object.assign(tracker, { logger: new Logger('test') });
    const isolated = (
      tracker as unknown as {
        isolated(payout: unknown, work: () => Promise<void>): Promise<void>;
      }
    ).isolated.bind(tracker);
    const others = jest.fn(async () => undefined);
    // One tick over two payouts: the first one's mismatch must not abort the second's tracking.
    await expect(
      (async () => {
        await isolated({ id: 'po_1', network: 'ETHEREUM' }, replace);
        await isolated({ id: 'po_2', network: 'ETHEREUM' }, others);
      })(),
    ).resolves.toBeUndefined();
    expect(others).toHaveBeenCalled();
    expect(manager.query).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ payoutId: 'po_1', txHash: first.hash }),
      expect.stringContaining('signing bug'),
    );
    error.mockRestore();
  });
});

describe('PayoutTracker: a wait on a block not proven is counted (review r9a, N3)', () => {
  const wallet = `0x${'33'.repeat(20)}`;
  const ours = `0x${'aa'.repeat(32)}`;
  const attempt = {
    id: '1',
    payout_id: 'po_1',
    tx_hash: ours,
    wallet_address: wallet,
    nonce: '7',
    created_at: new Date(0).toISOString(),
    last_broadcast_at: null,
    purpose: 'transfer',
  };
  const payout = { id: 'po_1', network: 'ETHEREUM', attempts: [attempt] };
  const block = { blockNumber: 90, blockHash: `0x${'bb'.repeat(32)}` };

  function setUp(ownReceipt: boolean) {
    const waits = {
      unproven: jest.fn(async () => undefined),
      proven: jest.fn(async () => undefined),
    };
    // The EVM path of a tick (PayoutTracker hands each EVM payout to it).
    const tracker = Object.create(EvmPayoutTracking.prototype) as EvmPayoutTracking;
    Object.assign(tracker, {
      logger: { warn: jest.fn(), log: jest.fn(), error: jest.fn() },
      config: { payouts: { replaceAfterMs: 60_000 } },
      journal: { attemptsOf: jest.fn(async () => [attempt]) },
      nonceProofWaits: waits,
    });
    const transport = {
      family: 'EVM',
      // This backend names a block for our receipt, or another transaction as the nonce's user.
      lookup: jest.fn(async () =>
        ownReceipt
          ? { state: 'mined', status: { ...block, succeeded: true, confirmations: 50 } }
          : { state: 'unknown' },
      ),
      nonceConsumer: jest.fn(async () => ({ txHash: `0x${'cc'.repeat(32)}`, ...block })),
    };
    // The run holds blocks up to 100 but cannot prove block 90 (below its first, not walked to).
    const blocks = {
      top: 100,
      catchingUp: false,
      mined: () => null,
      mayHold: () => false,
      confirmed: jest.fn(async () => null),
    };
    const tick = { now: () => 10 ** 13, missing: new Map(), blocks };
    const trackEvm = (
      tracker as unknown as {
        track(...args: unknown[]): Promise<void>;
      }
    ).track.bind(tracker);
    const report = { completed: 0, failed: 0, replaced: 0, resigned: 0, unreplaceable: [] };
    const run = () =>
      trackEvm({ confirmations: 12 }, transport, payout, new Map([[wallet, 8]]), report, tick);
    return { waits, run, blocks };
  }

  it("counts a nonce's consumer whose block the run cannot prove, and ends no wait", async () => {
    const { waits, run, blocks } = setUp(false);
    await run();
    expect(blocks.confirmed).toHaveBeenCalled();
    expect(waits.proven).not.toHaveBeenCalled();
    expect(waits.unproven).toHaveBeenCalledWith('po_1', 'ETHEREUM', attempt, 'block');
  });

  it('counts a receipt looked up in a block the run cannot prove', async () => {
    const { waits, run } = setUp(true);
    await run();
    expect(waits.proven).not.toHaveBeenCalled();
    expect(waits.unproven).toHaveBeenCalledWith('po_1', 'ETHEREUM', attempt, 'block');
  });
});
