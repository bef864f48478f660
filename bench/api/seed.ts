import type { Client } from 'pg';
import { sleep } from '../kit/clock';

/**
 * Copies of the API-created session with their own ids, addresses and creation times, so the
 * merchant's list has `total` rows whatever the creation throughput turns out to be.
 */
export async function seedSessions(db: Client, templateId: string, total: number): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (id, merchant_id, livemode, status, amount, currency, network,
       chain_family, currency_contract, pay_address, key_fingerprint, derivation_index,
       pricing_amount, pricing_currency, exchange_rate, created_at, expires_at, fee_percent,
       fee_fixed)
     SELECT 'cs_seed' || lpad(g::text, 18, '0'), t.merchant_id, t.livemode, t.status, t.amount,
            t.currency, t.network, t.chain_family, t.currency_contract, 'Tseed' || g,
            t.key_fingerprint, 1000000000 + g, t.pricing_amount, t.pricing_currency,
            t.exchange_rate, t.created_at - make_interval(secs => g),
            t.expires_at - make_interval(secs => g), t.fee_percent, t.fee_fixed
       FROM checkout_sessions t, generate_series(1, $2::int) g
      WHERE t.id = $1`,
    [templateId, total - 1],
  );
}

/** Both counts from one snapshot, once requests still in flight at the stop have finished. */
export async function countRows(db: Client) {
  await sleep(500);
  const { rows } = await db.query<{ sessions: string; keys: string }>(
    `SELECT (SELECT count(*) FROM checkout_sessions) AS sessions,
            (SELECT count(*) FROM idempotency_keys) AS keys`,
  );
  return { sessions: Number(rows[0].sessions), keys: Number(rows[0].keys) };
}
