import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { Client } from 'pg';
import type { Devnet } from '../../test/support/devnet';
import { sleep, timestamp } from './clock';
import type { Merchant } from './database';
import { Api, callApi } from './services';

/*
 * A merchant's ETHEREUM/USDT balance for payouts. By default funded the way a merchant's money
 * arrives: a checkout session paid on the devnet and settled by the worker's deposit watcher.
 * `ledger` writes the same credit as one SQL ledger entry instead.
 */

export type FundingMode = 'session' | 'ledger';

export interface FundedMerchant extends Merchant {
  /** Available once funded: what its payouts may spend. */
  funded: string;
  fundedBy: FundingMode;
  /** Session funding: the session and the transfer that paid it. */
  sessionId: string | null;
  fundingTxHash: string | null;
}

// Deposit scans run every 3 s by default, and the block must be mined and confirmed first.
const SETTLE_TIMEOUT_MS = 60_000;
const BALANCE_POLL_MS = 250;

/** Funds the merchant with at least `needed` USDT on ETHEREUM. */
export async function fundMerchant(
  mode: FundingMode,
  context: { db: Client; api: Api; devnet: Devnet },
  merchant: Merchant,
  needed: Decimal,
): Promise<FundedMerchant> {
  if (mode === 'ledger') {
    await creditInLedger(context.db, merchant.id, needed);
    const funded = await available(context.api, merchant.apiKey);
    return { ...merchant, funded, fundedBy: mode, sessionId: null, fundingTxHash: null };
  }
  // The merchant's checkout fee (FEE_PERCENT, 1 % by default) is taken from what arrives.
  const price = needed.times(1.05).plus(10).toDecimalPlaces(2, Decimal.ROUND_UP);
  const session = await callApi<{ id: string; pay_address: string; amount: string }>(
    context.api,
    merchant.apiKey,
    'POST',
    '/v1/checkout/sessions',
    {
      pricing_amount: price.toFixed(2),
      pricing_currency: 'USD',
      currency: 'USDT',
      network: 'ETHEREUM',
    },
    { 'idempotency-key': randomUUID() },
  );
  const payment = await context.devnet.transfer('USDT', session.pay_address, session.amount);
  const deadline = timestamp() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const funded = await available(context.api, merchant.apiKey);
    if (new Decimal(funded).greaterThanOrEqualTo(needed)) {
      return {
        ...merchant,
        funded,
        fundedBy: mode,
        sessionId: session.id,
        fundingTxHash: payment.txHash,
      };
    }
    if (timestamp() > deadline) {
      throw new Error(
        `The funding session was not credited within ${SETTLE_TIMEOUT_MS / 1000} s ` +
          `(available ${funded} USDT, ${needed.toFixed()} needed); see the worker log.`,
      );
    }
    await sleep(BALANCE_POLL_MS);
  }
}

/** ETHEREUM/USDT available to the merchant itself (no sub-merchant), from GET /v1/balances. */
async function available(api: Api, apiKey: string): Promise<string> {
  const balances = await callApi<
    Array<{
      currency: string;
      network: string;
      sub_merchant_code: string | null;
      available: string;
    }>
  >(api, apiKey, 'GET', '/v1/balances');
  const balance = balances.find(
    (entry) =>
      entry.currency === 'USDT' && entry.network === 'ETHEREUM' && entry.sub_merchant_code === null,
  );
  return balance?.available ?? '0';
}

/**
 * A deposit-like ledger entry (libs/ledger: debit deposits:ETHEREUM:USDT, credit the merchant's
 * available account); the ledger_balances trigger keeps the balance row the API locks.
 */
async function creditInLedger(db: Client, merchantId: string, amount: Decimal): Promise<void> {
  await db.query('BEGIN');
  try {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO ledger_entries (reference, kind) VALUES ($1, 'deposit') RETURNING id`,
      [`bench_credit:${randomUUID()}`],
    );
    await db.query(
      `INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id)
       VALUES ($1, 'deposits:ETHEREUM:USDT', 'USDT', 'ETHEREUM', $2, NULL),
              ($1, $3, 'USDT', 'ETHEREUM', -$2::numeric, $4)`,
      [rows[0].id, amount.toFixed(), `merchant:${merchantId}:-:ETHEREUM:USDT`, merchantId],
    );
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  }
}
