import { randomBytes, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import request from 'supertest';
import { newId } from '@app/common';
import { LedgerService, unmatchedTransferEntry } from '@app/ledger';
import { RefundDestinationLinks } from '@app/refunds/refund-destination-links';
import { creditBalance } from './ledger-credit';
import { balanceOf, randomEvmAddress, randomTronAddress } from './payouts-api';
import { TestApi, TestMerchant } from './test-app';

/** Helpers of the refunds suites (test/refunds*.e2e-spec.ts). */

export const REFUND_ID = /^re_[0-9A-Za-z]{22}$/;

export interface RefundBody {
  id: string;
  session_id: string | null;
  unmatched_transfer_id: string | null;
  status: string;
  livemode: boolean;
  amount: string;
  fee: string;
  net_amount: string;
  currency: string;
  network: string;
  to_address: string | null;
  destination_url: string | null;
  send_after: string | null;
  tx_hash: string | null;
  reason: string | null;
  error_reason: string | null;
  created_at: string;
  completed_at: string | null;
  sub_merchant_code: string | null;
}

/** The secret of the refund's customer link (its `destination_url`), as the service derives it. */
export function refundSecret(api: TestApi, refundId: string): string {
  return api.app.get(RefundDestinationLinks).secretOf(refundId);
}

/**
 * The hosted refund form's POST as the page's script sends it: the address and the secret of the
 * link the page was opened with (the refund's own unless `secret` says otherwise; null: none).
 */
export function postRefundDestination(
  api: TestApi,
  sessionId: string,
  refundId: string,
  body: object,
  secret: string | null = refundSecret(api, refundId),
) {
  return request(api.http)
    .post(`/checkout/${sessionId}/refunds/${refundId}/destination`)
    .send(secret === null ? body : { ...body, secret });
}

/**
 * The hosted page script's question: does the link's secret open this refund's form (200 with
 * the refund's amounts, deadline and delay), or not (404)? The refund's own secret by default.
 */
export function postRefundFormAccess(
  api: TestApi,
  sessionId: string,
  refundId: string,
  secret: string | null = refundSecret(api, refundId),
) {
  return request(api.http)
    .post(`/checkout/${sessionId}/refunds/${refundId}/access`)
    .send(secret === null ? {} : { secret });
}

/** POST /v1/checkout/sessions/{id}/refunds with a fresh Idempotency-Key unless one is given. */
export function postSessionRefund(
  api: TestApi,
  merchant: TestMerchant,
  sessionId: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return api.post(`/v1/checkout/sessions/${sessionId}/refunds`, merchant, body, {
    'Idempotency-Key': randomUUID(),
    ...headers,
  });
}

/** A session created through the API, then given what a customer paid (as settlement leaves it). */
export async function paidSession(
  api: TestApi,
  merchant: TestMerchant,
  input: {
    network: string;
    amount: string;
    received: string;
    status: 'Paid' | 'Underpaid' | 'Expired' | 'Pending';
    subMerchantCode?: string;
    subMerchantId?: string;
  },
): Promise<{ id: string; pay_address: string }> {
  const { body: session } = await api
    .post(
      '/v1/checkout/sessions',
      merchant,
      {
        pricing_amount: input.amount,
        pricing_currency: 'USD',
        currency: 'USDT',
        network: input.network,
      },
      input.subMerchantCode ? { 'X-Sub-Merchant-Code': input.subMerchantCode } : {},
    )
    .expect(201);
  // As settlement leaves it: what was received, all of it credited (no fee), so that a later
  // settlement of this session (a chain reset of the shared test database by another suite)
  // reverses exactly what creditBalance booked and its entry balances.
  await api.dataSource.query(
    `UPDATE checkout_sessions
        SET status = $2, amount = $3, amount_received = $4, net_amount = $4, fee_amount = 0
      WHERE id = $1`,
    [session.id, input.status, input.amount, input.received],
  );
  if (new Decimal(input.received).greaterThan(0)) {
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      subMerchantId: input.subMerchantId ?? null,
      network: input.network,
      currency: 'USDT',
      amount: input.received,
    });
  }
  return session as { id: string; pay_address: string };
}

/**
 * An unmatched transfer of the session's merchant, as the deposit watcher records it and books it
 * once confirmed (`deposits` against `unmatched`); `booked: false` for one not confirmed yet.
 */
export async function unmatchedTransfer(
  api: TestApi,
  merchant: TestMerchant,
  session: { id: string; pay_address: string },
  input: { network: string; amount: string; status?: 'detected' | 'reverted'; booked?: boolean },
): Promise<string> {
  const id = newId('utx');
  const booked = input.booked ?? true;
  await api.dataSource.query(
    `INSERT INTO unmatched_transfers
       (id, merchant_id, session_id, livemode, reason, status, network, currency, token_contract,
        from_address, to_address, tx_hash, log_index, amount, amount_base_units, block_number,
        block_hash, booked, bookings)
     VALUES ($1, $2, $3, false, 'session_already_paid', $4, $5, 'USDT', 'T-token', 'T-sender',
             $6, $7, 0, $8, $9, 1, '0xblock', $10, $11)`,
    [
      id,
      merchant.id,
      session.id,
      input.status ?? 'detected',
      input.network,
      session.pay_address,
      '0x' + randomBytes(32).toString('hex'),
      input.amount,
      new Decimal(input.amount).times(1e6).toFixed(0),
      booked,
      booked ? 1 : 0,
    ],
  );
  if (booked) {
    await api.dataSource.transaction((manager) =>
      new LedgerService(api.dataSource).post(
        manager,
        unmatchedTransferEntry({
          id,
          network: input.network,
          currency: 'USDT',
          amount: new Decimal(input.amount),
          booking: 1,
          reversal: false,
        }),
      ),
    );
  }
  return id;
}

/** The credit balance of an account (what the service owes on it), "0" without history. */
export async function creditBalanceOf(api: TestApi, account: string): Promise<string> {
  const rows: Array<{ balance: string }> = await api.dataSource.query(
    `SELECT trim_scale(-balance)::text AS balance FROM ledger_balances WHERE account = $1`,
    [account],
  );
  return rows[0]?.balance ?? '0';
}

/** The refund.* events of a refund, oldest first, as GET /v1/events shows them. */
export async function refundEvents(
  api: TestApi,
  merchant: TestMerchant,
  refundId: string,
): Promise<Array<{ type: string; previous_status: string | null; status: string }>> {
  const { body } = await api.get(`/v1/events?object_id=${refundId}`, merchant).expect(200);
  return (
    body as Array<{
      type: string;
      sequence: number;
      previous_status: string | null;
      data: { object: { status: string } };
    }>
  )
    .sort((a, b) => a.sequence - b.sequence)
    .map((event) => ({
      type: event.type,
      previous_status: event.previous_status,
      status: event.data.object.status,
    }));
}

/**
 * Moves a refund's payout as the payout worker would, without a chain: its status (a completion
 * with a transaction hash and time), the payout's own ledger entry (completion or release) and
 * PayoutEvents, in one transaction with the payout's row lock held.
 */
export async function movePayoutOfRefund(
  api: TestApi,
  refundId: string,
  status: 'Processing' | 'Completed' | 'Failed',
  fields: { tx_hash?: string; error_reason?: string } = {},
): Promise<void> {
  const { PayoutEvents } = await import('@app/payouts/payout-events');
  const { completionEntry, releaseEntry } = await import('@app/payouts');
  await api.dataSource.transaction(async (manager) => {
    const [payout] = await manager.query(`SELECT * FROM payouts WHERE refund_id = $1 FOR UPDATE`, [
      refundId,
    ]);
    const txHash =
      fields.tx_hash ?? (status === 'Failed' ? null : `0x${randomBytes(32).toString('hex')}`);
    await manager.query(
      `UPDATE payouts SET status = $2, tx_hash = COALESCE($3, tx_hash),
              error_reason = COALESCE($4, error_reason),
              completed_at = CASE WHEN $2 = 'Completed' THEN now() END WHERE id = $1`,
      [payout.id, status, txHash, fields.error_reason ?? null],
    );
    const ledger = api.app.get(LedgerService);
    if (status === 'Completed') await ledger.post(manager, completionEntry(payout));
    if (status === 'Failed') await ledger.post(manager, releaseEntry(payout));
    await api.app.get(PayoutEvents).statusChanged(manager, payout.id, payout.status);
  });
}

/** What a refused refunds request must leave untouched of a merchant's. */
export async function refundFootprint(api: TestApi, owner: TestMerchant) {
  return {
    refunds: await api.count('refunds', 'merchant_id = $1', [owner.id]),
    payouts: await api.count('payouts', 'merchant_id = $1', [owner.id]),
    events: await api.count('events', 'merchant_id = $1', [owner.id]),
    keys: await api.count('idempotency_keys', 'merchant_id = $1', [owner.id]),
    tron: await balanceOf(api, owner, 'TRON', 'USDT'),
    ethereum: await balanceOf(api, owner, 'ETHEREUM', 'USDT'),
  };
}

/**
 * Expects the refusal in the error envelope with this status and code, naming `param`, and
 * nothing of `owner`'s written (refundFootprint); its message.
 */
export async function refusedWithNothingWritten(
  api: TestApi,
  owner: TestMerchant,
  send: () => request.Test,
  status: number,
  code: string,
  param: string,
): Promise<string> {
  const before = await refundFootprint(api, owner);
  const { body } = await send().expect(status);
  expect(body.error).toMatchObject({ code, param });
  expect(await refundFootprint(api, owner)).toEqual(before);
  return body.error.message as string;
}

/**
 * A new unmatched transfer of `amount` USDT (to a new paid session's address, 10 received of 10)
 * refunded to a fresh address of the network through POST /v1/unmatched-transfers/:id/refunds.
 */
export async function refundNewUnmatchedTransfer(
  api: TestApi,
  merchant: TestMerchant,
  network: 'ETHEREUM' | 'TRON',
  amount: string,
): Promise<RefundBody> {
  const session = await paidSession(api, merchant, {
    network,
    amount: '10',
    received: '10',
    status: 'Paid',
  });
  const transferId = await unmatchedTransfer(api, merchant, session, { network, amount });
  const to = network === 'TRON' ? randomTronAddress() : randomEvmAddress();
  const { body } = await api
    .post(
      `/v1/unmatched-transfers/${transferId}/refunds`,
      merchant,
      { to_address: to },
      { 'Idempotency-Key': randomUUID() },
    )
    .expect(201);
  return body as RefundBody;
}
