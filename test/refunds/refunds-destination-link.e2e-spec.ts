import { parseUnits, Wallet } from 'ethers';
import request from 'supertest';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { balanceOf, ledgerLines } from '../support/payouts-api';
import {
  paidSession,
  postRefundDestination,
  postSessionRefund,
  RefundBody,
  refundEvents,
  refundSecret,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { plus } from '../support/decimal-sum';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
// Six seconds: long enough to cancel in, short enough to wait out.
const DELAY_MINUTES = 0.1;

/*
 * Review finding 4: the session's link is no longer the credential of a refund's address form,
 * and an address the customer gives is not sent at once. The form takes the refund's own secret
 * (from its destination_url) and refuses anything else as an unknown refund, writing nothing; an
 * address it takes waits REFUND_DESTINATION_DELAY_MINUTES before the payout worker may sign it,
 * during which the merchant cancels it (its hold released once); after it, it is sent once.
 * On anvil with the in-process worker, which really signs and sends.
 */
describe('The refund form’s secret and the delay before a customer’s address is sent', () => {
  const chain = useChainSuite({
    environment: () => ({
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      PAYOUT_REVIEW_THRESHOLD: '5000',
      REFUND_DESTINATION_DELAY_MINUTES: String(DELAY_MINUTES),
    }),
    newChain: 'payouts',
    worker: true,
    merchant: { name: 'Refund Links Shop' },
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  const refundOf = async (id: string) =>
    (await api.get(`/v1/refunds/${id}`, merchant).expect(200)).body as RefundBody;

  /** A refund of an underpaid session (20 received), waiting for the customer's address. */
  async function waitingRefund(): Promise<{ sessionId: string; refund: RefundBody }> {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
    return { sessionId: session.id, refund: refund as RefundBody };
  }

  /** Everything a taken address writes, to compare before and after a refused one. */
  const footprint = async (refundId: string) => ({
    refund: await refundOf(refundId),
    payouts: await api.count('payouts', 'refund_id = $1', [refundId]),
    events: await refundEvents(api, merchant, refundId),
    balance: await balanceOf(api, merchant, 'ETHEREUM', 'USDT'),
  });

  it('takes the address only with the refund’s own secret; without it, 404 and nothing written', async () => {
    const { sessionId, refund } = await waitingRefund();
    const other = await waitingRefund();
    // The merchant reads the customer's link at any time; the secret is in its fragment.
    const link = new URL(refund.destination_url!);
    expect(`${link.origin}${link.pathname}`).toBe(`http://pay.test.example/checkout/${sessionId}`);
    const fragment = new URLSearchParams(link.hash.slice(1));
    expect(fragment.get('refund')).toBe(refund.id);
    const secret = fragment.get('secret')!;
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(secret).toBe(refundSecret(api, refund.id));
    expect((await refundOf(refund.id)).destination_url).toBe(refund.destination_url);
    // Not stored in clear: neither in the refund's events nor in its stored idempotent answer.
    expect(await api.count('events', `data::text LIKE $1`, [`%${secret}%`])).toBe(0);
    expect(
      await api.count('idempotency_keys', `response_body::text LIKE $1`, [`%${secret}%`]),
    ).toBe(0);

    const before = await footprint(refund.id);
    const to = Wallet.createRandom().address;
    for (const wrong of [null, '', 'x', 42, refundSecret(api, other.refund.id), `${secret}x`]) {
      const { body } = await postRefundDestination(
        api,
        sessionId,
        refund.id,
        { to_address: to },
        wrong as string | null,
      ).expect(404);
      expect(body.error).toMatchObject({ code: 'resource_missing' });
      const { body: access } = await request(api.http)
        .post(`/checkout/${sessionId}/refunds/${refund.id}/access`)
        .send(wrong === null ? {} : { secret: wrong })
        .expect(404);
      expect({ ...access.error, request_id: null }).toEqual({ ...body.error, request_id: null });
    }
    // The same answer as a refund that does not exist.
    const { body: unknown } = await postRefundDestination(
      api,
      sessionId,
      're_0000000000000000000000',
      { to_address: to },
      secret,
    ).expect(404);
    expect(unknown.error).toMatchObject({
      code: 'resource_missing',
      message: "No such refund: 're_0000000000000000000000'.",
    });
    expect(await footprint(refund.id)).toEqual(before);

    // The page's script checks its link first, then posts the address with the secret.
    const { body: access } = await request(api.http)
      .post(`/checkout/${sessionId}/refunds/${refund.id}/access`)
      .send({ secret })
      .expect(200);
    expect(access).toEqual({
      id: refund.id,
      amount: '20',
      fee: '0.5',
      net_amount: '19.5',
      expires_at: expect.any(String),
      delay_minutes: DELAY_MINUTES,
    });
    const { body: accepted } = await postRefundDestination(api, sessionId, refund.id, {
      to_address: to,
    }).expect(200);
    expect(accepted).toEqual({
      id: refund.id,
      status: 'Pending',
      to_address: to,
      send_after: expect.any(String),
    });
    const after = await refundOf(refund.id);
    expect(after).toMatchObject({ status: 'Pending', to_address: to, destination_url: null });
    expect(Date.parse(after.send_after!)).toBe(Date.parse(accepted.send_after));
    // Once given, the link opens nothing.
    await request(api.http)
      .post(`/checkout/${sessionId}/refunds/${refund.id}/access`)
      .send({ secret })
      .expect(404);
    // Not sent: canceled within the delay, so that the chain test below sends only its own.
    await api.post(`/v1/refunds/${refund.id}/cancel`, merchant, {}).expect(200);
    await api.post(`/v1/refunds/${other.refund.id}/cancel`, merchant, {}).expect(200);
  });

  it('opens exactly the refund its link names, when a session has several waiting', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    // Two refunds of one session wait for an address: the older one's link must open it.
    const { body: older } = await postSessionRefund(api, merchant, session.id, {
      amount: '8',
    }).expect(201);
    const { body: newer } = await postSessionRefund(api, merchant, session.id, {
      amount: '5',
    }).expect(201);
    const access = (refundId: string, secret: string) =>
      request(api.http).post(`/checkout/${session.id}/refunds/${refundId}/access`).send({ secret });
    const { body: olderForm } = await access(older.id, refundSecret(api, older.id)).expect(200);
    expect(olderForm).toMatchObject({ id: older.id, amount: '8', net_amount: '7.5' });
    const { body: newerForm } = await access(newer.id, refundSecret(api, newer.id)).expect(200);
    expect(newerForm).toMatchObject({ id: newer.id, amount: '5', net_amount: '4.5' });
    // And nothing else: one refund's secret opens no other.
    await access(older.id, refundSecret(api, newer.id)).expect(404);
    await access(newer.id, refundSecret(api, older.id)).expect(404);
    // The page names neither refund: its script asks for the one in its fragment.
    const { text: html } = await request(api.http).get(`/checkout/${session.id}`).expect(200);
    expect(html).not.toContain(older.id);
    expect(html).not.toContain(newer.id);
    expect(html).toContain(`data-refunds="/checkout/${session.id}/refunds"`);
    // The older one takes its address on the page; the newer one still waits.
    const to = Wallet.createRandom().address;
    await postRefundDestination(api, session.id, older.id, { to_address: to }).expect(200);
    expect(await refundOf(older.id)).toMatchObject({ status: 'Pending', to_address: to });
    expect((await refundOf(newer.id)).status).toBe('requires_destination');
    await access(older.id, refundSecret(api, older.id)).expect(404);
    await access(newer.id, refundSecret(api, newer.id)).expect(200);
    await api.post(`/v1/refunds/${older.id}/cancel`, merchant, {}).expect(200);
    await api.post(`/v1/refunds/${newer.id}/cancel`, merchant, {}).expect(200);
  });

  it('signs nothing before the delay, cancels within it (released once), and sends once after it', async () => {
    const canceled = await waitingRefund();
    const sent = await waitingRefund();
    const toCanceled = Wallet.createRandom().address;
    const toSent = Wallet.createRandom().address;
    const start = await balanceOf(api, merchant, 'ETHEREUM', 'USDT');

    await postRefundDestination(api, canceled.sessionId, canceled.refund.id, {
      to_address: toCanceled,
    }).expect(200);
    const { body: given } = await postRefundDestination(api, sent.sessionId, sent.refund.id, {
      to_address: toSent,
    }).expect(200);
    const sendAfter = Date.parse(given.send_after);
    // The merchant hears of the address at once, with when it will be sent.
    expect(await refundEvents(api, merchant, sent.refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
      { type: 'refund.pending', previous_status: 'requires_destination', status: 'Pending' },
    ]);
    const [pending]: Array<{ send_after: string }> = await api.dataSource.query(
      `SELECT data #>> '{object,send_after}' AS send_after FROM events
        WHERE object_id = $1 AND type = 'refund.pending'`,
      [sent.refund.id],
    );
    expect(Date.parse(pending.send_after)).toBe(sendAfter);

    // Within the delay: canceled, its payout rejected before anything was signed.
    const { body: cancel } = await api
      .post(`/v1/refunds/${canceled.refund.id}/cancel`, merchant, {})
      .expect(200);
    expect(cancel.status).toBe('Canceled');
    await api.post(`/v1/refunds/${canceled.refund.id}/cancel`, merchant, {}).expect(409);

    // After it: the worker signs the other one, once, and it completes.
    await waitFor(
      async () => (await refundOf(sent.refund.id)).status === 'Completed',
      90_000,
      'the refund sent after its delay',
    );
    const done = await refundOf(sent.refund.id);
    const [first]: Array<{ signed_at: Date }> = await api.dataSource.query(
      `SELECT min(a.created_at) AS signed_at FROM payout_attempts a
         JOIN payouts p ON p.id = a.payout_id WHERE p.refund_id = $1`,
      [sent.refund.id],
    );
    expect(first.signed_at.getTime()).toBeGreaterThanOrEqual(sendAfter);
    const transfers = await transfersFrom(devnet, 'USDT', HOT_WALLET);
    expect(transfers.filter((transfer) => transfer.to === toSent)).toEqual([
      { to: toSent, amount: parseUnits('19.5', 6), txHash: done.tx_hash },
    ]);

    // The canceled one: never signed nor sent, its 20 released exactly once.
    expect(transfers.filter((transfer) => transfer.to === toCanceled)).toEqual([]);
    const [payout]: Array<{ id: string; status: string }> = await api.dataSource.query(
      `SELECT id, status FROM payouts WHERE refund_id = $1`,
      [canceled.refund.id],
    );
    expect(payout.status).toBe('Rejected');
    expect(await api.count('payout_attempts', 'payout_id = $1', [payout.id])).toBe(0);
    expect(await ledgerLines(api, `refund:${canceled.refund.id}:release`)).toHaveLength(2);
    expect(await api.count('ledger_entries', `reference LIKE $1`, [`payout:${payout.id}:%`])).toBe(
      0,
    );
    expect(await refundEvents(api, merchant, canceled.refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'requires_destination' },
      { type: 'refund.pending', previous_status: 'requires_destination', status: 'Pending' },
      { type: 'refund.canceled', previous_status: 'Pending', status: 'Canceled' },
    ]);
    // Of both 20s held: the canceled one back, the sent one gone.
    expect(await balanceOf(api, merchant, 'ETHEREUM', 'USDT')).toEqual({
      available: plus(start!.available, '20'),
      held: plus(start!.held, '-40'),
    });
  });
});
