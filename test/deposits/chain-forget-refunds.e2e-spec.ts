import { ChainResetService, DepositWatcherService } from '@app/deposits';
import { LedgerAccounts } from '@app/ledger';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { cleanUpPayouts, ledgerLines } from '../support/payouts-api';
import {
  creditBalanceOf,
  movePayoutOfRefund,
  refundNewUnmatchedTransfer,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';

const NETWORK = 'ETHEREUM';

/*
 * chains:forget (devnet, testnet reset) and unmatched transfers already refunded (docs/refunds.md,
 * "Late payments and reorgs"; review 2, F7): a transfer whose refund is Completed stays booked
 * with its refund, both of the gone chain, instead of being reverted with a reorg loss booked.
 * The deposit watcher then follows the new chain past the transfer's height: a block hash there
 * that is not the transfer's is no reorg of it (sweeps review M2).
 */
describe('chains:forget and refunded unmatched transfers', () => {
  // Forgetting the chain is what this suite tests: it does so itself.
  const chain = useChainSuite({
    newChain: 'keep',
    merchant: { name: 'Forgotten Chain Refunds Shop' },
    cleanUp: (suite) => cleanUpPayouts(suite.api, [suite.merchant]),
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  const refundOfNewTransfer = (amount: string) =>
    refundNewUnmatchedTransfer(api, merchant, NETWORK, amount);

  const transferOf = async (id: string) =>
    (
      await api.dataSource.query(`SELECT status, booked FROM unmatched_transfers WHERE id = $1`, [
        id,
      ])
    )[0];

  it('leaves a transfer refunded in full booked with its refund: no reorg loss', async () => {
    const completed = await refundOfNewTransfer('17');
    await movePayoutOfRefund(api, completed.id, 'Completed');
    const unrefunded = await refundOfNewTransfer('13');
    await api.post(`/v1/refunds/${unrefunded.id}/cancel`, merchant, {}).expect(200);
    const losses = await creditBalanceOf(api, LedgerAccounts.refundLosses(NETWORK, 'USDT'));

    const report = await api.app.get(ChainResetService).forget(NETWORK);

    expect(await transferOf(completed.unmatched_transfer_id!)).toEqual({
      status: 'detected',
      booked: true,
    });
    expect(await ledgerLines(api, `refund:${completed.id}:reorg_loss:1`)).toEqual([]);
    expect(await creditBalanceOf(api, LedgerAccounts.refundLosses(NETWORK, 'USDT'))).toBe(losses);
    // A transfer nobody refunded is of the gone chain: reverted and its booking reversed.
    expect(await transferOf(unrefunded.unmatched_transfer_id!)).toEqual({
      status: 'reverted',
      booked: false,
    });
    expect(report.keptRefundedUnmatched).toBeGreaterThanOrEqual(1);

    // The new chain grows past the kept transfer's height (block 1, another hash there): the
    // watcher reverts nothing of the gone chain and books no loss.
    const watcher = api.app.get(DepositWatcherService);
    await devnet.mine(5);
    await watcher.scan(NETWORK);
    await devnet.mine(5);
    await watcher.scan(NETWORK);
    expect(await transferOf(completed.unmatched_transfer_id!)).toEqual({
      status: 'detected',
      booked: true,
    });
    expect(await ledgerLines(api, `refund:${completed.id}:reorg_loss:1`)).toEqual([]);
    expect(await creditBalanceOf(api, LedgerAccounts.refundLosses(NETWORK, 'USDT'))).toBe(losses);
  });
});
