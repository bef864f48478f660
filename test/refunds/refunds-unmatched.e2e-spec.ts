import Decimal from 'decimal.js';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { UnmatchedTransferBooks } from '@app/deposits';
import { REVERSED_TRANSFER_REASON } from '@app/refunds';
import { RefundHoldAccount1766320000000 } from '@app/database/migrations/1766320000000-refund-hold-account';
import { balanceOf, cleanUpPayouts, ledgerLines } from '../support/payouts-api';
import {
  creditBalanceOf,
  movePayoutOfRefund,
  RefundBody,
  refundNewUnmatchedTransfer,
  refundEvents,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { plus } from '../support/decimal-sum';

const NETWORK = 'TRON';
const FEE = '1';

/*
 * Refunds of unmatched transfers in the books (docs/refunds.md, "Ledger"): their hold is
 * `refund_hold`'s, never the merchant's held balance (review finding 8), through creation,
 * completion, failure and cancel, and for refunds in flight when the migration ran.
 */
describe('Refunds of unmatched transfers: the refund-hold account', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Unmatched Refunds Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  const books = async () => ({
    merchant: await balanceOf(api, merchant, NETWORK, 'USDT'),
    unmatched: await creditBalanceOf(api, LedgerAccounts.unmatched(NETWORK, 'USDT')),
    refundHold: await creditBalanceOf(api, LedgerAccounts.refundHold(NETWORK, 'USDT')),
    fees: await creditBalanceOf(api, LedgerAccounts.fees(NETWORK, 'USDT')),
    hotWallet: await creditBalanceOf(api, LedgerAccounts.hotWallet(NETWORK, 'USDT')),
  });

  const refundOfNewTransfer = (amount: string) =>
    refundNewUnmatchedTransfer(api, merchant, NETWORK, amount);

  /**
   * Moves a refund's hold from refund_hold to merchant_held, as the migration's down does
   * (`refund:<id>:hold_moved:1`): where the code before it held an unmatched transfer's refund.
   */
  const moveHoldBack = (refundId: string, amount: number) =>
    api.dataSource.transaction((manager) =>
      api.app.get(LedgerService).post(manager, {
        reference: `refund:${refundId}:hold_moved:1`,
        kind: 'refund_hold_moved',
        lines: [
          {
            account: LedgerAccounts.merchantHeld(merchant.id, null, NETWORK, 'USDT'),
            amount: new Decimal(-amount),
            currency: 'USDT',
            network: NETWORK,
            merchantId: merchant.id,
          },
          {
            account: LedgerAccounts.refundHold(NETWORK, 'USDT'),
            amount: new Decimal(amount),
            currency: 'USDT',
            network: NETWORK,
          },
        ],
      }),
    );

  it('holds in refund_hold and completes from it: the merchant’s balances never move', async () => {
    await refundOfNewTransfer('3'); // the merchant has a balance row to compare
    const before = await books();
    const refund = await refundOfNewTransfer('20');
    const afterHold = await books();
    expect(afterHold.merchant).toEqual(
      before.merchant && {
        available: plus(before.merchant.available, '10'),
        held: before.merchant.held,
      },
    );
    expect(afterHold.refundHold).toBe(plus(before.refundHold, '20'));
    expect(afterHold.unmatched).toBe(plus(before.unmatched, '0'));
    expect(await ledgerLines(api, `refund:${refund.id}:hold`)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          account: LedgerAccounts.refundHold(NETWORK, 'USDT'),
          amount: '-20',
        }),
        expect.objectContaining({
          account: LedgerAccounts.unmatched(NETWORK, 'USDT'),
          amount: '20',
        }),
      ]),
    );

    await movePayoutOfRefund(api, refund.id, 'Processing');
    await movePayoutOfRefund(api, refund.id, 'Completed');
    const done = await books();
    expect((await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200)).body.status).toBe(
      'Completed',
    );
    // Gone from refund_hold to the customer (net) and the fees (fee); the merchant untouched.
    expect(done.merchant).toEqual(afterHold.merchant);
    expect(done.refundHold).toBe(before.refundHold);
    expect(done.unmatched).toBe(afterHold.unmatched);
    expect(done.fees).toBe(plus(before.fees, FEE));
    expect(done.hotWallet).toBe(plus(before.hotWallet, '19'));
  });

  it('returns a failed or canceled refund’s hold to unmatched, never through the merchant', async () => {
    const failing = await refundOfNewTransfer('7');
    const before = await books();
    await movePayoutOfRefund(api, failing.id, 'Failed', { error_reason: 'reverted' });
    const failed = await books();
    expect(failed.merchant).toEqual(before.merchant);
    expect(failed.refundHold).toBe(plus(before.refundHold, '-7'));
    expect(failed.unmatched).toBe(plus(before.unmatched, '7'));

    const canceling = await refundOfNewTransfer('8');
    const held = await books();
    await api.post(`/v1/refunds/${canceling.id}/cancel`, merchant, {}).expect(200);
    const canceled = await books();
    expect(canceled.merchant).toEqual(held.merchant);
    expect(canceled.refundHold).toBe(plus(held.refundHold, '-8'));
    expect(canceled.unmatched).toBe(plus(held.unmatched, '8'));
  });

  it('moves the hold of a refund in flight when the migration runs into refund_hold', async () => {
    const refund = await refundOfNewTransfer('9');
    const before = await books();
    // As the code before the migration held it: in the merchant's held balance.
    await moveHoldBack(refund.id, 9);
    expect((await books()).merchant?.held).toBe(plus(before.merchant!.held, '9'));
    const migrate = async () => {
      const runner = api.dataSource.createQueryRunner();
      try {
        await new RefundHoldAccount1766320000000().up(runner);
      } finally {
        await runner.release();
      }
    };
    await migrate();
    expect(await books()).toEqual(before);
    expect(await ledgerLines(api, `refund:${refund.id}:hold_moved:2`)).toHaveLength(2);
    // Run again, it finds the hold where it belongs and moves nothing.
    await migrate();
    expect(await ledgerLines(api, `refund:${refund.id}:hold_moved:3`)).toEqual([]);
    expect(await books()).toEqual(before);
    // And the refund then completes from refund_hold, the merchant untouched.
    await movePayoutOfRefund(api, refund.id, 'Processing');
    await movePayoutOfRefund(api, refund.id, 'Completed');
    const done = await books();
    expect(done.merchant).toEqual(before.merchant);
    expect(done.refundHold).toBe(plus(before.refundHold, '-9'));
  });

  it('completes, fails or cancels a refund the old code held in merchant_held, not moved yet', async () => {
    /** A refund held in merchant_held: as the code before it did, after the migration's down. */
    const oldRefund = async (amount: number) => {
      const refund = await refundOfNewTransfer(String(amount));
      await moveHoldBack(refund.id, amount);
      return refund;
    };

    const completing = await oldRefund(4);
    const failing = await oldRefund(5);
    const canceling = await oldRefund(6);
    const held = await books();
    expect(held.merchant?.held).toBeDefined();

    await movePayoutOfRefund(api, completing.id, 'Processing');
    await movePayoutOfRefund(api, completing.id, 'Completed');
    await movePayoutOfRefund(api, failing.id, 'Failed', { error_reason: 'reverted' });
    await api.post(`/v1/refunds/${canceling.id}/cancel`, merchant, {}).expect(200);

    const done = await books();
    // Out of merchant_held, where the old code put them; refund_hold, which never had them,
    // untouched; the failed and canceled ones owed to their senders again; the merchant's
    // available balance as it was.
    expect(done.merchant).toEqual({
      available: held.merchant!.available,
      held: plus(held.merchant!.held, '-15'),
    });
    expect(done.refundHold).toBe(held.refundHold);
    expect(done.unmatched).toBe(plus(held.unmatched, '11'));
  });

  describe('a reorg reversing a refunded transfer', () => {
    const reorgBooks = async () => ({
      merchant: await balanceOf(api, merchant, NETWORK, 'USDT'),
      deposits: await creditBalanceOf(api, LedgerAccounts.deposits(NETWORK, 'USDT')),
      unmatched: await creditBalanceOf(api, LedgerAccounts.unmatched(NETWORK, 'USDT')),
      refundHold: await creditBalanceOf(api, LedgerAccounts.refundHold(NETWORK, 'USDT')),
      losses: await creditBalanceOf(api, LedgerAccounts.refundLosses(NETWORK, 'USDT')),
    });
    /** As the deposit watcher's tick does it: the transfer reverted, then its booking reversed. */
    const reorg = (transferId: string) =>
      api.dataSource.transaction(async (manager) => {
        await manager.query(
          `UPDATE unmatched_transfers SET status = 'reverted', reverted_at = now() WHERE id = $1`,
          [transferId],
        );
        await api.app.get(UnmatchedTransferBooks).reverseReverted(manager, NETWORK);
      });
    /** Mined again and confirmed: booked again as the watcher books it. */
    const remined = (transferId: string) =>
      api.dataSource.transaction(async (manager) => {
        await manager.query(
          `UPDATE unmatched_transfers SET status = 'detected', reverted_at = NULL WHERE id = $1`,
          [transferId],
        );
        await api.app
          .get(UnmatchedTransferBooks)
          .bookConfirmed(manager, NETWORK, 1_000_000_000, () => true);
      });
    const getRefund = async (id: string) =>
      (await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody;

    // Earlier suites' fixtures on the shared database (a reverted transfer still booked, one not
    // booked yet) would move with this suite's reorgs: brought in line first.
    beforeEach(() =>
      api.dataSource.transaction(async (manager) => {
        const books = api.app.get(UnmatchedTransferBooks);
        await books.reverseReverted(manager, NETWORK);
        await books.bookConfirmed(manager, NETWORK, 1_000_000_000, () => true);
      }),
    );

    it('cancels a refund not signed yet, its hold back before the reversal empties it', async () => {
      const before = await reorgBooks();
      const refund = await refundOfNewTransfer('11');
      await reorg(refund.unmatched_transfer_id!);
      expect(await getRefund(refund.id)).toMatchObject({
        status: 'Canceled',
        error_reason: REVERSED_TRANSFER_REASON,
      });
      expect(
        (
          await api.dataSource.query(`SELECT status FROM payouts WHERE refund_id = $1`, [refund.id])
        )[0].status,
      ).toBe('Rejected');
      const events = await refundEvents(api, merchant, refund.id);
      expect(events.at(-1)).toEqual({
        type: 'refund.canceled',
        previous_status: 'Pending',
        status: 'Canceled',
      });
      // As if neither the transfer nor the refund had been (the fixture's session credit aside).
      expect(await reorgBooks()).toEqual({
        ...before,
        merchant: await balanceOf(api, merchant, NETWORK, 'USDT'),
        deposits: plus(before.deposits, '-10'),
      });
    });

    it('refuses to book a loss for a live refund without a payout (a broken invariant)', async () => {
      const refund = await refundOfNewTransfer('13');
      const before = await reorgBooks();
      const [payout] = await api.dataSource.query(
        `SELECT row_to_json(p) AS row FROM payouts p WHERE refund_id = $1`,
        [refund.id],
      );
      await api.dataSource.query(`DELETE FROM payouts WHERE refund_id = $1`, [refund.id]);
      try {
        await expect(reorg(refund.unmatched_transfer_id!)).rejects.toThrow('without a payout');
      } finally {
        await api.dataSource.query(
          `INSERT INTO payouts SELECT * FROM json_populate_record(NULL::payouts, $1)`,
          [payout.row],
        );
      }
      // Rolled back: the transfer booked, no loss, the refund as it was.
      expect(await reorgBooks()).toEqual(before);
      expect((await getRefund(refund.id)).status).toBe('Pending');
      await api.post(`/v1/refunds/${refund.id}/cancel`, merchant, {}).expect(200);
    });

    it('books a signed refund as a loss, undone when the transfer is mined again', async () => {
      const refund = await refundOfNewTransfer('12');
      await movePayoutOfRefund(api, refund.id, 'Processing');
      const signed = await reorgBooks();
      await reorg(refund.unmatched_transfer_id!);
      // Left to run (it is on the chain), its amount a loss rather than a debt of nobody.
      expect((await getRefund(refund.id)).status).toBe('Processing');
      expect(await reorgBooks()).toEqual({
        ...signed,
        deposits: plus(signed.deposits, '12'),
        losses: plus(signed.losses, '-12'),
      });
      expect(await ledgerLines(api, `refund:${refund.id}:reorg_loss:1`)).toHaveLength(2);
      // Running the reversal again books nothing more.
      await reorg(refund.unmatched_transfer_id!);
      expect((await reorgBooks()).losses).toBe(plus(signed.losses, '-12'));

      await movePayoutOfRefund(api, refund.id, 'Completed');
      const sent = await reorgBooks();
      expect(sent.losses).toBe(plus(signed.losses, '-12'));
      expect(sent.refundHold).toBe(plus(signed.refundHold, '-12'));
      expect(sent.merchant).toEqual(signed.merchant);

      await remined(refund.unmatched_transfer_id!);
      expect(await reorgBooks()).toEqual({
        ...sent,
        deposits: plus(sent.deposits, '-12'),
        losses: signed.losses,
      });
      expect(await ledgerLines(api, `refund:${refund.id}:reorg_recovered:2`)).toHaveLength(2);
    });

    it('undoes the loss when a refund signed before the reorg fails after all', async () => {
      const refund = await refundOfNewTransfer('13');
      await movePayoutOfRefund(api, refund.id, 'Processing');
      const signed = await reorgBooks();
      await reorg(refund.unmatched_transfer_id!);
      expect((await reorgBooks()).losses).toBe(plus(signed.losses, '-13'));
      await movePayoutOfRefund(api, refund.id, 'Failed', { error_reason: 'reverted' });
      // Nothing left and nothing owed: the loss and the hold are gone, unmatched as before.
      expect(await reorgBooks()).toEqual({
        ...signed,
        deposits: plus(signed.deposits, '13'),
        refundHold: plus(signed.refundHold, '-13'),
      });
      // Mined again, the transfer is owed to its sender again, and may be refunded anew.
      await remined(refund.unmatched_transfer_id!);
      expect((await reorgBooks()).unmatched).toBe(plus(signed.unmatched, '13'));
    });
  });
});
