import { Logger } from '@nestjs/common';
import { keccak256, Transaction, Wallet } from 'ethers';
import type { EntityManager } from 'typeorm';
import type { SignedTransfer } from '@app/chains';
import type { PayoutEvents } from '../payout-events';
import type { PayoutRecord } from '../payout.types';
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
