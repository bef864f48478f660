import { Logger } from '@nestjs/common';
import { keccak256, Transaction, Wallet } from 'ethers';
import type { EntityManager } from 'typeorm';
import type { PayoutTransports, SignedTransfer } from '@app/chains';
import type { PayoutEvents } from '../payout-events';
import type { PayoutRecord } from '../payout.types';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutAttempt, PayoutJournalRepository } from './payout-journal.repository';

/** Two real signed transfers of one wallet with one nonce: bytes and hashes as signing makes them. */
async function signedPair(): Promise<Array<{ raw: string; hash: string }>> {
  const wallet = new Wallet(`0x${'11'.repeat(32)}`);
  const sign = async (maxFeePerGas: bigint) => {
    const raw = await wallet.signTransaction(
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
  };
  return [await sign(10n), await sign(12n)];
}

const attemptOf = (raw: string, txHash: string): PayoutAttempt =>
  ({
    id: '1',
    payout_id: 'po_1',
    network: 'ETHEREUM',
    raw_transaction: raw,
    tx_hash: txHash,
  }) as PayoutAttempt;

describe('PayoutBroadcaster (review r8, F7)', () => {
  const setUp = () => {
    const transport = { family: 'EVM', broadcast: jest.fn(async () => ({ kind: 'accepted' })) };
    const transports = { transportFor: () => transport } as unknown as PayoutTransports;
    const journal = { recordBroadcast: jest.fn(async () => undefined) };
    const broadcaster = new PayoutBroadcaster(
      transports,
      journal as unknown as PayoutJournalRepository,
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    return { transport, journal, broadcaster, errors };
  };

  afterEach(() => jest.restoreAllMocks());

  it('sends stored bytes that are the transaction of the stored hash', async () => {
    const [first] = await signedPair();
    const { transport, journal, broadcaster } = setUp();
    await expect(broadcaster.broadcast(attemptOf(first.raw, first.hash))).resolves.toEqual({
      kind: 'accepted',
    });
    expect(transport.broadcast).toHaveBeenCalledWith(first.raw);
    expect(journal.recordBroadcast).toHaveBeenCalledWith('1', 'accepted', 'now');
  });

  it('never sends bytes stored under another hash, marks nothing, and logs an error', async () => {
    // The same nonce's other transaction: mined unseen, it would have the payout signed anew.
    const [first, second] = await signedPair();
    const { transport, journal, broadcaster, errors } = setUp();
    await expect(broadcaster.broadcast(attemptOf(second.raw, first.hash))).resolves.toBeNull();
    expect(transport.broadcast).not.toHaveBeenCalled();
    expect(journal.recordBroadcast).not.toHaveBeenCalled();
    expect(errors).toHaveBeenCalledWith(
      expect.objectContaining({ payoutId: 'po_1', txHash: first.hash }),
      expect.stringMatching(/not sent/),
    );
  });
});

describe('PayoutJournalRepository stores no bytes under another hash (review r8, F7)', () => {
  it('refuses before any statement, for one attempt or a claim of many', async () => {
    const [first, second] = await signedPair();
    const manager = { query: jest.fn(async () => [{}]) };
    const journal = new PayoutJournalRepository(
      {} as never,
      { statusChanged: jest.fn() } as unknown as PayoutEvents,
    );
    const signed = (raw: string, txHash: string) =>
      ({ rawTransaction: raw, txHash, nonce: 7, fees: null, gasLimit: null }) as SignedTransfer;
    const payout = { id: 'po_1', network: 'ETHEREUM', status: 'Pending' } as PayoutRecord;
    const wallet = `0x${'33'.repeat(20)}`;
    await expect(
      journal.insertAttempt(
        manager as unknown as EntityManager,
        payout,
        wallet,
        signed(second.raw, first.hash),
      ),
    ).rejects.toThrow(/do not hash to/);
    await expect(
      journal.insertFirstAttempts(manager as unknown as EntityManager, [payout], wallet, [
        signed(second.raw, first.hash),
      ]),
    ).rejects.toThrow(/do not hash to/);
    expect(manager.query).not.toHaveBeenCalled();
    // Its own hash is stored.
    await journal.insertAttempt(
      manager as unknown as EntityManager,
      payout,
      wallet,
      signed(first.raw, first.hash),
    );
    expect(manager.query).toHaveBeenCalled();
  });
});
