import { DataSource, EntityManager } from 'typeorm';
import { LedgerAccounts } from '@app/ledger';

/**
 * Posts `count` payments of `amount` each to a merchant's balance in one statement, as settling
 * a block does (one entry per payment: deposits against the merchant): a statement of many rows
 * for the balance-transactions suites, through the real ledger trigger.
 */
export async function postManyPayments(
  dataSource: DataSource,
  input: { merchantId: string; network: string; currency: string; amount: string; count: number },
): Promise<void> {
  // A fixture, not a request: the API's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) is for
  // requests, and posting 100,000s of entries one trigger at a time takes longer on a busy machine.
  await dataSource.transaction(async (manager) => {
    await manager.query('SET LOCAL statement_timeout = 0');
    await insertPayments(manager, input);
  });
}

async function insertPayments(
  manager: EntityManager,
  input: { merchantId: string; network: string; currency: string; amount: string; count: number },
): Promise<void> {
  const { merchantId, network, currency, amount, count } = input;
  await manager.query(
    `WITH entry AS (
       INSERT INTO ledger_entries (reference, kind)
       SELECT 'test_many:' || gen_random_uuid(), 'deposit' FROM generate_series(1, $1)
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
      LedgerAccounts.deposits(network, currency),
      LedgerAccounts.merchant(merchantId, null, network, currency),
      amount,
      merchantId,
    ],
  );
}
