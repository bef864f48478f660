import { parseUnits, Wallet } from 'ethers';
import { LedgerAccounts } from '@app/ledger';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { ledgerLines } from '../support/payouts-api';
import {
  postRefundDestination,
  postSessionRefund,
  RefundBody,
  refundEvents,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const units = (amount: string) => parseUnits(amount, 6);

/*
 * Refunds sent on a real anvil chain by the in-process worker (Bull on real Redis), from the
 * devnet's hot wallet, for a session the customer really overpaid: the refund's payout is
 * signed, journaled, tracked and completed by the payout machinery, once, and the refund follows.
 */
describe('Refunds sent on a real chain', () => {
  const chain = useChainSuite({
    environment: () => ({
      WATCH_NETWORKS: 'ETHEREUM',
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      PAYOUT_REVIEW_THRESHOLD: '5000',
      FEE_PERCENT: '1',
    }),
    newChain: 'payouts',
    worker: true,
    merchant: { name: 'Refunds on chain' },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  const refundOf = async (id: string) =>
    (await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody;

  async function waitForRefund(id: string, status: string): Promise<RefundBody> {
    await waitFor(async () => (await refundOf(id)).status === status, 60_000, `${id} ${status}`);
    return refundOf(id);
  }

  it('refunds an overpayment and a part on chain, once each, with the books and events to match', async () => {
    // The customer pays 13 USDT for a 10 USDT order.
    const { body: session } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    await devnet.transfer('USDT', session.pay_address, '13');
    await waitFor(
      async () =>
        (await api.get(`/v1/checkout/sessions/${session.id}`, merchant).expect(200)).body.status ===
        'Paid',
      30_000,
      'the session paid',
    );
    // 13 less the 1 % fee, less both refunds (3 and 4).
    const left = '5.87';

    // The excess, to an address the merchant knows.
    const first = Wallet.createRandom().address;
    const { body: excess } = await postSessionRefund(api, merchant, session.id, {
      to_address: first,
      reason: 'Overpaid',
    }).expect(201);
    expect(excess).toMatchObject({ status: 'Pending', amount: '3', fee: '0.5', net_amount: '2.5' });

    // Another part, to an address the customer gives on the hosted page.
    const { body: part } = await postSessionRefund(api, merchant, session.id, {
      amount: '4',
    }).expect(201);
    expect(part.status).toBe('requires_destination');
    const second = Wallet.createRandom().address;
    await postRefundDestination(api, session.id, part.id, { to_address: second }).expect(200);

    const done = await waitForRefund(excess.id, 'Completed');
    const doneToo = await waitForRefund(part.id, 'Completed');
    // Each sent once, for its net amount, in the transaction the refund names.
    const sent = await transfersFrom(devnet, 'USDT', HOT_WALLET);
    const toFirst = sent.filter((transfer) => transfer.to === first);
    const toSecond = sent.filter((transfer) => transfer.to === second);
    expect(toFirst).toEqual([{ to: first, amount: units('2.5'), txHash: done.tx_hash }]);
    expect(toSecond).toEqual([{ to: second, amount: units('3.5'), txHash: doneToo.tx_hash }]);
    expect(await devnet.balanceOf('USDT', first)).toBe(units('2.5'));
    expect(await devnet.balanceOf('USDT', second)).toBe(units('3.5'));
    expect(done.completed_at).not.toBeNull();
    expect(done.error_reason).toBeNull();

    expect(await refundEvents(api, merchant, excess.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
      { type: 'refund.processing', previous_status: 'Pending', status: 'Processing' },
      { type: 'refund.completed', previous_status: 'Processing', status: 'Completed' },
    ]);
    expect((await refundEvents(api, merchant, part.id)).map((event) => event.type)).toEqual([
      'refund.created',
      'refund.pending',
      'refund.processing',
      'refund.completed',
    ]);

    // The merchant's balance paid both, once: held, then gone; nothing held any more.
    expect((await api.get('/v1/balances', merchant).expect(200)).body).toEqual([
      {
        currency: 'USDT',
        network: 'ETHEREUM',
        sub_merchant_code: null,
        available: left,
        held: '0',
      },
    ]);
    const [payout]: Array<{ id: string; status: string }> = await api.dataSource.query(
      `SELECT id, status FROM payouts WHERE refund_id = $1`,
      [excess.id],
    );
    expect(payout.status).toBe('Completed');
    const completion = await ledgerLines(api, `payout:${payout.id}:completed`);
    expect(completion).toContainEqual({
      kind: 'payout',
      account: LedgerAccounts.merchantHeld(merchant.id, null, 'ETHEREUM', 'USDT'),
      amount: '3',
    });
    expect(await api.count('ledger_entries', `reference LIKE $1`, [`payout:${payout.id}:%`])).toBe(
      1,
    );
    // Neither is a payout of the merchant's: not listed, no payout.* events.
    expect((await api.get('/v1/payouts', merchant).expect(200)).body).toEqual([]);
    expect(
      await api.count('events', `merchant_id = $1 AND type LIKE 'payout.%'`, [merchant.id]),
    ).toBe(0);
    // Nothing is left to refund beyond what was received.
    const { body: tooMuch } = await postSessionRefund(api, merchant, session.id, {
      amount: '6.000001',
    }).expect(422);
    expect(tooMuch.error).toMatchObject({ code: 'amount_above_refundable', param: 'amount' });
  });
});
