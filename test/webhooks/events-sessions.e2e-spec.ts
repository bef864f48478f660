import { SessionExpiryService } from '@app/checkout';
import { DepositWatcherService } from '@app/deposits';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { TestApi, TestMerchant } from '../support/test-app';
import { createSession, SESSIONS } from '../support/sessions-api';

const CONFIRMATIONS = 2;

interface Event {
  id: string;
  type: string;
  sequence: number;
  previous_status: string | null;
  created_at: string;
  data: {
    object: { id: string; status: string; amount_received: string };
    transaction?: { status: string; tx_hash: string; amount: string };
  };
}

/*
 * The events of a session's life on a real chain (anvil + ERC-20), written by the deposit watcher
 * in the transaction of each change: payment seen, confirmed, session paid; a reorg undoing it.
 */
describe('Events of checkout sessions on a real EVM chain', () => {
  // This suite's chain is new: the one the previous suite watched as ETHEREUM is forgotten.
  const chain = useChainSuite({ confirmations: CONFIRMATIONS, merchant: false });
  let devnet: Devnet;
  let api: TestApi;
  let watcher: DepositWatcherService;
  beforeAll(() => {
    ({ devnet, api } = chain);
    watcher = api.app.get(DepositWatcherService);
  });

  /** The session's events in the order they happened (the list is newest first). */
  const eventsOf = async (merchant: TestMerchant, sessionId: string): Promise<Event[]> => {
    const { body } = await api.get(`/v1/events?object_id=${sessionId}`, merchant).expect(200);
    return (body as Event[]).reverse();
  };
  const summary = (events: Event[]) =>
    events.map((event) => [event.sequence, event.type, event.previous_status]);

  it('Pending -> payment detected -> confirmed -> Paid, in sequence, each with the session as it was', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const sent = await devnet.transfer('USDT', session.pay_address, '10');
    await watcher.scan('ETHEREUM');

    const detected = await eventsOf(merchant, session.id);
    expect(summary(detected)).toEqual([[1, 'checkout.session.payment_detected', null]]);
    expect(detected[0].data.object).toMatchObject({ status: 'Pending', amount_received: '0' });
    expect(detected[0].data.transaction).toMatchObject({
      status: 'Pending',
      tx_hash: sent.txHash,
      amount: '10',
    });

    await devnet.mine(CONFIRMATIONS - 1);
    await watcher.scan('ETHEREUM');
    const events = await eventsOf(merchant, session.id);
    expect(summary(events)).toEqual([
      [1, 'checkout.session.payment_detected', null],
      [2, 'checkout.session.payment_confirmed', 'Pending'],
      [3, 'checkout.session.paid', 'Pending'],
    ]);
    const { body: now } = await api.get(`${SESSIONS}/${session.id}`, merchant).expect(200);
    expect(events[2].data.object).toEqual(now);
    expect(events[1].data.transaction).toMatchObject({ status: 'Confirmed', tx_hash: sent.txHash });

    // Scanning again changes nothing, so it announces nothing.
    await watcher.scan('ETHEREUM');
    expect(await eventsOf(merchant, session.id)).toHaveLength(3);
  });

  it('a block paying more sessions than the events are built at a time: each its own events, in order', async () => {
    // Settlement builds events a slice of 64 sessions at a time while its statements run.
    const merchant = await api.createMerchant();
    const sessions = await Promise.all(
      Array.from({ length: 70 }, (_, index) =>
        createSession(api, merchant, { pricing_amount: String(index + 1) }),
      ),
    );
    await devnet.transferMany(
      sessions.map((session, index) => ({
        currency: 'USDT' as const,
        to: session.pay_address,
        amount: String(index + 1),
      })),
    );
    await watcher.scan('ETHEREUM');
    await devnet.mine(CONFIRMATIONS - 1);
    await watcher.scan('ETHEREUM');
    for (const [index, session] of sessions.entries()) {
      const events = await eventsOf(merchant, session.id);
      expect(summary(events)).toEqual([
        [1, 'checkout.session.payment_detected', null],
        [2, 'checkout.session.payment_confirmed', 'Pending'],
        [3, 'checkout.session.paid', 'Pending'],
      ]);
      const { body: now } = await api.get(`${SESSIONS}/${session.id}`, merchant).expect(200);
      expect(now).toMatchObject({ status: 'Paid', amount_received: String(index + 1) });
      expect(events[2].data.object).toEqual(now);
      expect(events[1].data.transaction).toMatchObject({ amount: String(index + 1) });
    }
  });

  it('a reorg that drops the payment: transaction_reverted, then back to pending', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10' });
    const snapshot = await devnet.snapshot();
    await devnet.transfer('USDT', session.pay_address, '10');
    await devnet.mine(CONFIRMATIONS - 1);
    await watcher.scan('ETHEREUM');
    await devnet.revert(snapshot);
    await devnet.mine(CONFIRMATIONS + 2);
    await watcher.scan('ETHEREUM');

    expect(summary(await eventsOf(merchant, session.id))).toEqual([
      [1, 'checkout.session.payment_detected', null],
      [2, 'checkout.session.payment_confirmed', 'Pending'],
      [3, 'checkout.session.paid', 'Pending'],
      [4, 'checkout.session.transaction_reverted', 'Confirmed'],
      [5, 'checkout.session.pending', 'Paid'],
    ]);
  });

  it('expiry: an unpaid session announces expired, a part-paid one underpaid', async () => {
    const merchant = await api.createMerchant();
    const unpaid = await createSession(api, merchant, { pricing_amount: '10' });
    const partPaid = await createSession(api, merchant, { pricing_amount: '10' });
    await devnet.transfer('USDT', partPaid.pay_address, '4');
    await devnet.mine(CONFIRMATIONS - 1);
    await watcher.scan('ETHEREUM');
    await api.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
      [[unpaid.id, partPaid.id]],
    );
    await api.app.get(SessionExpiryService).expireDue();

    expect(summary(await eventsOf(merchant, unpaid.id))).toEqual([
      [1, 'checkout.session.expired', 'Pending'],
    ]);
    const partPaidEvents = await eventsOf(merchant, partPaid.id);
    expect(partPaidEvents.at(-1)).toMatchObject({
      type: 'checkout.session.underpaid',
      previous_status: 'Pending',
      data: { object: { status: 'Underpaid', amount_received: '4' } },
    });
  });
});
