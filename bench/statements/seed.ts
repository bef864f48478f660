import { Client } from 'pg';

/**
 * `count` payments of a merchant, posted as settlement posts them (one ledger entry each, the
 * deposits account against the merchant's) in one statement: the real balances trigger writes
 * each one's running balance, so the statement read later is the ledger's own.
 */
export async function seedPayments(
  db: Client,
  input: { merchantId: string; network: string; currency: string; amount: string; count: number },
): Promise<void> {
  const { merchantId, network, currency, amount, count } = input;
  await db.query(
    `WITH entry AS (
       INSERT INTO ledger_entries (reference, kind)
       SELECT 'checkout_session:cs_bench_' || md5(random()::text) || ':v1', 'deposit'
         FROM generate_series(1, $1)
       RETURNING id)
     INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id)
     SELECT entry.id, line.account, $2, $3, line.amount, line.merchant_id
       FROM entry CROSS JOIN LATERAL (VALUES ($4, $6::numeric, NULL), ($5, -$6::numeric, $7))
         AS line(account, amount, merchant_id)
      ORDER BY entry.id, line.account`,
    [
      count,
      currency,
      network,
      `deposits:${network}:${currency}`,
      `merchant:${merchantId}:-:${network}:${currency}`,
      amount,
      merchantId,
    ],
  );
}
