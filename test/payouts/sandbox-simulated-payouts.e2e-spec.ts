import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { parseUnits, Wallet } from 'ethers';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { postSessionRefund, refundEvents } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const units = (amount: string) => parseUnits(amount, 6);

/*
 * Simulated money never leaves on a chain (docs/sandbox.md): a running worker (Bull on real Redis)
 * with a funded hot wallet on a real anvil chain signs a sandbox payout only when the merchant's
 * real deposits cover it; one that simulated money funds is never signed and waits for the test
 * helpers.
 */
describe('Sandbox: payouts funded by simulated payments never reach the chain', () => {
  const chain = useChainSuite({
    environment: {
      WATCH_NETWORKS: 'ETHEREUM',
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      PAYOUT_REVIEW_THRESHOLD: '100000',
      FEE_PERCENT: '1',
    },
    newChain: 'payouts',
    worker: true,
    merchant: false,
  });
  let devnet: Devnet;
  let api: TestApi;
  beforeAll(() => ({ devnet, api } = chain));

  async function newSession(merchant: TestMerchant, amount: string) {
    const { body } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: amount,
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    return body as { id: string; pay_address: string };
  }

  async function sessionOf(merchant: TestMerchant, id: string) {
    return (await api.get(`/v1/checkout/sessions/${id}`, merchant).expect(200)).body;
  }

  /** A real payment of `amount` USDT on the devnet; answers the session's net amount. */
  async function payOnChain(merchant: TestMerchant, amount: string): Promise<string> {
    const session = await newSession(merchant, amount);
    await devnet.transfer('USDT', session.pay_address, amount);
    await waitFor(
      async () => (await sessionOf(merchant, session.id)).status === 'Paid',
      30_000,
      'the real payment',
    );
    return netOf(session.id);
  }

  /** A simulated payment (test helper) of `amount` USDT; answers the session. */
  async function simulatedSession(merchant: TestMerchant, amount: string) {
    const session = await newSession(merchant, amount);
    const { body } = await api
      .post(`/v1/test-helpers/checkout/sessions/${session.id}/payments`, merchant, { amount })
      .expect(200);
    expect(body.status).toBe('Paid');
    return session;
  }

  /** A simulated payment (test helper) of `amount` USDT; answers the session's net amount. */
  async function paySimulated(merchant: TestMerchant, amount: string): Promise<string> {
    return netOf((await simulatedSession(merchant, amount)).id);
  }

  async function netOf(sessionId: string): Promise<string> {
    const [row]: Array<{ net: string }> = await api.dataSource.query(
      `SELECT net_amount::text AS net FROM checkout_sessions WHERE id = $1`,
      [sessionId],
    );
    return new Decimal(row.net).toFixed();
  }

  async function createPayout(merchant: TestMerchant, amount: string, to: string) {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount, currency: 'USDT', network: 'ETHEREUM', to_address: to },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body as { id: string; status: string };
  }

  async function payout(merchant: TestMerchant, id: string) {
    return (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body;
  }

  async function waitForPayout(
    merchant: TestMerchant,
    id: string,
    done: (body: { status: string; pending_reason: string | null }) => boolean,
    what: string,
  ) {
    await waitFor(async () => done(await payout(merchant, id)), 30_000, `${id} ${what}`);
    return payout(merchant, id);
  }

  const awaitingSimulation = (body: { status: string; pending_reason: string | null }) =>
    body.status === 'Pending' && body.pending_reason === 'awaiting_simulation';

  /** What the worker journaled for the payout: its signed attempts and nonces. */
  async function signaturesOf(payoutId: string): Promise<number> {
    return (
      (await api.count('payout_attempts', 'payout_id = $1', [payoutId])) +
      (await api.count('payout_nonces', 'payout_id = $1', [payoutId]))
    );
  }

  async function onChainTo(recipient: string) {
    return (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient);
  }

  it('only simulated credit: never signed nor broadcast, waits for the helper, which completes it', async () => {
    const merchant = await api.createMerchant();
    await paySimulated(merchant, '1000');
    const recipient = Wallet.createRandom().address;
    const created = await createPayout(merchant, '500', recipient);

    const waiting = await waitForPayout(merchant, created.id, awaitingSimulation, 'parked');
    expect(waiting).toMatchObject({ status: 'Pending', tx_hash: null });
    const [row]: Array<{ since: Date | null; due: string }> = await api.dataSource.query(
      `SELECT awaiting_simulation_since AS since, next_attempt_at::text AS due
         FROM payouts WHERE id = $1`,
      [created.id],
    );
    expect(row.since).not.toBeNull();
    expect(row.due).toBe('infinity');
    // The reconciler runs every few seconds and the retry delay is 300 ms: still nothing signed.
    await devnet.mine(3);
    expect(await signaturesOf(created.id)).toBe(0);
    expect(await onChainTo(recipient)).toEqual([]);
    expect(await devnet.balanceOf('USDT', recipient)).toBe(0n);

    const { body: completed } = await api
      .post(`/v1/test-helpers/payouts/${created.id}/complete`, merchant, {})
      .expect(200);
    expect(completed).toMatchObject({ status: 'Completed', pending_reason: null });
    expect(completed.tx_hash).toMatch(/^sim_[0-9a-f]{60}$/);
    expect(await signaturesOf(created.id)).toBe(0);
    expect(await onChainTo(recipient)).toEqual([]);
  });

  it('real (devnet) deposit credit: the payout is broadcast and completed on chain', async () => {
    const merchant = await api.createMerchant();
    await payOnChain(merchant, '100');
    const recipient = Wallet.createRandom().address;
    const created = await createPayout(merchant, '40', recipient);
    const done = await waitForPayout(
      merchant,
      created.id,
      (body) => body.status === 'Completed',
      'Completed',
    );
    expect(done.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await onChainTo(recipient)).toEqual([
      { to: recipient, amount: units('39.5'), txHash: done.tx_hash },
    ]);
  });

  it('mixed credit: real money is paid out to the last unit, one unit more waits', async () => {
    const merchant = await api.createMerchant();
    const realNet = await payOnChain(merchant, '100'); // 99 after the 1 % deposit fee
    await paySimulated(merchant, '100');
    const recipient = Wallet.createRandom().address;

    const first = await createPayout(merchant, new Decimal(realNet).minus(10).toFixed(), recipient);
    await waitForPayout(merchant, first.id, (body) => body.status !== 'Pending', 'claimed');
    // Exactly what is left of the real money: sent too.
    const second = await createPayout(merchant, '10', recipient);
    await waitForPayout(merchant, second.id, (body) => body.status !== 'Pending', 'claimed');
    // Only simulated money is left.
    const third = await createPayout(merchant, '1', recipient);
    await waitForPayout(merchant, third.id, awaitingSimulation, 'parked');

    for (const sent of [first, second]) {
      await waitForPayout(merchant, sent.id, (body) => body.status === 'Completed', 'Completed');
    }
    expect((await onChainTo(recipient)).map((t) => t.amount).sort()).toEqual(
      [units('9.5'), units(new Decimal(realNet).minus(10.5).toFixed())].sort(),
    );
    expect(await signaturesOf(third.id)).toBe(0);
    const { body: failed } = await api
      .post(`/v1/test-helpers/payouts/${third.id}/fail`, merchant, { reason: 'simulated' })
      .expect(200);
    expect(failed).toMatchObject({ status: 'Failed', error_reason: 'simulated' });
  });

  it('20 concurrent payouts on a mixed balance: what goes on chain never exceeds the real money', async () => {
    const merchant = await api.createMerchant();
    await payOnChain(merchant, '50'); // 49.5 real
    await paySimulated(merchant, '100'); // 99 simulated: 148.5 available
    const recipient = Wallet.createRandom().address;
    const created = await Promise.all(
      Array.from({ length: 20 }, () => createPayout(merchant, '5', recipient)),
    );
    const settled = await Promise.all(
      created.map((one) =>
        waitForPayout(
          merchant,
          one.id,
          (body) => body.status === 'Completed' || awaitingSimulation(body),
          'settled',
        ),
      ),
    );
    // 9 x 5 = 45 <= 49.5 < 50: nine sent, whichever they are; eleven wait.
    expect(settled.filter((body) => body.status === 'Completed')).toHaveLength(9);
    expect(settled.filter(awaitingSimulation)).toHaveLength(11);
    expect(await onChainTo(recipient)).toHaveLength(9);
    expect(await devnet.balanceOf('USDT', recipient)).toBe(units('4.5') * 9n);
  });

  it('a refund of a simulated payment: its payout is never signed, it completes without a chain', async () => {
    const merchant = await api.createMerchant();
    const session = await simulatedSession(merchant, '100');
    const recipient = Wallet.createRandom().address;
    const { body: refund } = await postSessionRefund(api, merchant, session.id, {
      amount: '30',
      to_address: recipient,
    }).expect(201);
    await waitFor(
      async () =>
        (await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200)).body.status ===
        'Completed',
      30_000,
      'the refund completed',
    );
    const { body: done } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(done.tx_hash).toMatch(/^sim_[0-9a-f]{60}$/);
    const [sent]: Array<{ id: string }> = await api.dataSource.query(
      `SELECT id FROM payouts WHERE refund_id = $1`,
      [refund.id],
    );
    expect(await signaturesOf(sent.id)).toBe(0);
    expect(await onChainTo(recipient)).toEqual([]);
    expect((await refundEvents(api, merchant, refund.id)).map((event) => event.type)).toEqual([
      'refund.created',
      'refund.completed',
    ]);
    const lines: Array<{ account: string }> = await api.dataSource.query(
      `SELECT l.account FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1`,
      [`payout:${sent.id}:completed`],
    );
    expect(lines.map((line) => line.account.split(':')[0]).sort()).toContain('simulated');
    expect(lines.some((line) => line.account.startsWith('hot_wallet:'))).toBe(false);
  });

  /*
   * Review r4, F2: a refund completes without a chain only within what simulation brought the
   * refunded session. A real payment's refund, with only simulated money left on the balance,
   * is any payout: it waits (never a `sim_` hash telling a real payer it was paid).
   */
  it('a refund of a real payment, only simulated money left: it waits, never completed without a chain', async () => {
    const merchant = await api.createMerchant();
    const realSession = await newSession(merchant, '100');
    await devnet.transfer('USDT', realSession.pay_address, '100');
    await waitFor(
      async () => (await sessionOf(merchant, realSession.id)).status === 'Paid',
      30_000,
      'the real payment',
    );
    const realNet = await netOf(realSession.id);
    // The real money leaves on chain.
    const out = await createPayout(merchant, realNet, Wallet.createRandom().address);
    await waitForPayout(merchant, out.id, (body) => body.status === 'Completed', 'Completed');
    await paySimulated(merchant, '100');

    const payer = Wallet.createRandom().address;
    const { body: refund } = await postSessionRefund(api, merchant, realSession.id, {
      amount: '50',
      to_address: payer,
    }).expect(201);
    const [sent]: Array<{ id: string }> = await api.dataSource.query(
      `SELECT id FROM payouts WHERE refund_id = $1`,
      [refund.id],
    );
    // A refund's payout is not a /v1/payouts object: read from its row.
    const rowOf = async () =>
      (
        await api.dataSource.query(
          `SELECT status, pending_reason, tx_hash FROM payouts WHERE id = $1`,
          [sent.id],
        )
      )[0] as { status: string; pending_reason: string | null; tx_hash: string | null };
    await waitFor(async () => awaitingSimulation(await rowOf()), 30_000, 'the payout parked');
    expect((await rowOf()).tx_hash).toBeNull();
    const { body: waiting } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(waiting).toMatchObject({ status: 'Pending', tx_hash: null });
    expect(await signaturesOf(sent.id)).toBe(0);
    expect(await onChainTo(payer)).toEqual([]);
  });
});
