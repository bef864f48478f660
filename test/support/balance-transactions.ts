import { DataSource, EntityManager } from 'typeorm';
import { LedgerAccounts } from '@app/ledger';

interface ManyPayments {
  merchantId: string;
  network: string;
  currency: string;
  amount: string;
  count: number;
}

/** Entries per statement and transaction: a few seconds of work on a loaded 2-core machine. */
const CHUNK = 20_000;

/**
 * Posts `count` payments of `amount` each to a merchant's balance, many entries a statement, as
 * settling a block does (one entry per payment), through the real ledger triggers.
 *
 * The other side of each entry is an account of this merchant's own (`test_funding:`), never the
 * shared `deposits:` account: a statement locks the balance row of every account it touches until
 * its transaction ends, and 100,000s of entries hold that lock for seconds to minutes on a busy
 * machine, long enough for every other suite's TRON deposit to time out behind it (CI, stop 35).
 * `test_funding` is no asset account, so the books of the network are not touched either.
 */
export async function postManyPayments(dataSource: DataSource, input: ManyPayments): Promise<void> {
  for (let posted = 0; posted < input.count; posted += CHUNK) {
    const count = Math.min(CHUNK, input.count - posted);
    await dataSource.transaction(async (manager) => {
      // A fixture, not a request: the API's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) is
      // for requests. Nothing else locks these accounts, so a lock wait is a defect: fail fast.
      await manager.query(`SET LOCAL statement_timeout = 0`);
      await manager.query(`SET LOCAL lock_timeout = '10s'`);
      await insertPayments(manager, { ...input, count });
    });
  }
}

async function insertPayments(manager: EntityManager, input: ManyPayments): Promise<void> {
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
      `test_funding:${merchantId}:${network}:${currency}`,
      LedgerAccounts.merchant(merchantId, null, network, currency),
      amount,
      merchantId,
    ],
  );
}
