import { randomBytes, randomUUID } from 'node:crypto';
import { getAddress, hexlify } from 'ethers';
import { TronWeb } from 'tronweb';
import { PayoutReviews } from '@app/payouts';
import { TestApi, TestMerchant } from './test-app';

/** Helpers shared by the payouts API suites (test/payouts-*.e2e-spec.ts). */

export const PAYOUTS = '/v1/payouts';

/** Payout timestamps: ISO 8601, milliseconds, numeric UTC offset. */
export const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

export const PAYOUT_ID = /^po_[0-9A-Za-z]{22}$/;

/** A fresh checksummed EVM address that nobody has been paid at. */
export const randomEvmAddress = (): string => getAddress(hexlify(randomBytes(20)));

/** A fresh TRON base58check address that nobody has been paid at. */
export const randomTronAddress = (): string =>
  TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'));

/** POST /v1/payouts with a fresh Idempotency-Key unless one is given. */
export function postPayout(
  api: TestApi,
  merchant: TestMerchant,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return api.post(PAYOUTS, merchant, body, { 'Idempotency-Key': randomUUID(), ...headers });
}

/** The balance row of GET /v1/balances for one token (own balance, or one sub-merchant's). */
export async function balanceOf(
  api: TestApi,
  merchant: TestMerchant,
  network: string,
  currency: string,
  subMerchantCode?: string,
): Promise<{ available: string; held: string } | undefined> {
  const scope = subMerchantCode ? `&sub_merchant_code=${subMerchantCode}` : '';
  const { body } = await api
    .get(`/v1/balances?network=${network}&currency=${currency}${scope}`, merchant)
    .expect(200);
  const rows = body as Array<{ available: string; held: string }>;
  if (rows.length > 1) throw new Error(`Expected one balance row, got ${JSON.stringify(rows)}`);
  return rows[0] && { available: rows[0].available, held: rows[0].held };
}

/** The lines of a ledger entry, as (account, amount) with trailing zeros trimmed, debits first. */
export async function ledgerLines(
  api: TestApi,
  reference: string,
): Promise<Array<{ kind: string; account: string; amount: string }>> {
  return api.dataSource.query(
    `SELECT e.kind, l.account, trim_scale(l.amount)::text AS amount
       FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
      WHERE e.reference = $1 ORDER BY l.amount DESC`,
    [reference],
  );
}

/** The internal id of a sub-merchant (what ledger postings carry). */
export async function subMerchantId(api: TestApi, merchant: TestMerchant, code: string) {
  const [row]: Array<{ id: string }> = await api.dataSource.query(
    `SELECT id FROM sub_merchants WHERE merchant_id = $1 AND code = $2`,
    [merchant.id, code],
  );
  return row.id;
}

/**
 * Leaves nothing of a suite's payouts for a payout processor or a books-equal-chain check in a
 * later suite of the same test run: still `Pending` ones are rejected (their funds released), and
 * the ones a test moved to `Processing`, `Completed` or `Failed` by SQL (never sent) are deleted,
 * with the refunds they sent.
 */
export async function cleanUpPayouts(api: TestApi, merchants: TestMerchant[]): Promise<void> {
  const ids = merchants.map((merchant) => merchant.id);
  const pending: Array<{ id: string }> = await api.dataSource.query(
    `SELECT id FROM payouts WHERE merchant_id = ANY($1) AND status = 'Pending'`,
    [ids],
  );
  const reviews = api.app.get(PayoutReviews);
  for (const row of pending) await reviews.reject(row.id, 'test-suite', 'end of test suite');
  // A refund goes with the payout that sent it: a refund left without one is a state the service
  // never makes, and a later suite's chain reset (a reorg of its transfer) refuses it.
  await api.dataSource.query(
    `WITH gone AS (
       DELETE FROM payouts WHERE merchant_id = ANY($1) AND status IN ('Processing', 'Completed', 'Failed')
       RETURNING refund_id)
     DELETE FROM refunds WHERE id IN (SELECT refund_id FROM gone)`,
    [ids],
  );
}

/** `count` payouts of 1 USDT on ETHEREUM, each to a fresh address; their ids, in order. */
export async function createPayouts(
  api: TestApi,
  merchant: TestMerchant,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const { body } = await postPayout(api, merchant, {
      amount: '1',
      currency: 'USDT',
      network: 'ETHEREUM',
      to_address: randomEvmAddress(),
    }).expect(201);
    ids.push((body as { id: string }).id);
  }
  return ids;
}
