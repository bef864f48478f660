import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { commonListConditions, ListResult, ListSpec, PageRequest, queryList } from '@app/common';
import { SubMerchantScope } from '@app/sub-merchants';
import { BalanceTransactionType, kindCondition } from './balance-transaction-types';

export interface BalanceTransactionFilter {
  merchantId: string;
  scope: SubMerchantScope;
  types?: BalanceTransactionType[];
  currency?: string;
  network?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** One balance transaction as SQL returns it: amounts as NUMERIC text, the time as text. */
export interface BalanceTransactionRow {
  public_id: string;
  kind: string;
  amount: string;
  fee: string;
  net: string;
  currency: string;
  network: string;
  balance_after: string;
  source_id: string;
  sub_merchant_code: string | null;
  created_at: string;
}

// The fee of a payment (or of its reversal) is the entry's line on the fees account: the
// merchant's line is the net, the deposits line the gross. No other entry that moves a merchant
// balance charges a fee in it (a payout's fee is inside its amount, see docs/balance-transactions.md).
const FEE = `CASE WHEN c.kind IN ('deposit', 'deposit_reversal') THEN COALESCE(
    (SELECT -sum(f.amount) FROM ledger_lines f
      WHERE f.entry_id = c.entry_id AND f.account LIKE 'fees:%'), 0) ELSE 0 END`;

const PROJECTION = `c.public_id, c.kind, (c.amount + fee.value)::text AS amount,
  fee.value::text AS fee, c.amount::text AS net, c.currency, c.network,
  c.balance_after::text AS balance_after, split_part(e.reference, ':', 2) AS source_id,
  sm.code AS sub_merchant_code,
  to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"') AS created_at`;

const SOURCE = `ledger_balance_changes c
  JOIN ledger_entries e ON e.id = c.entry_id
  CROSS JOIN LATERAL (SELECT ${FEE} AS value) fee
  LEFT JOIN sub_merchants sm ON sm.id = c.sub_merchant_id`;

/** The conditions of a statement, over `ledger_balance_changes c`. */
function conditions(filter: BalanceTransactionFilter, bind: (value: unknown) => string): string[] {
  const { where } = commonListConditions('c', filter, bind);
  if (filter.currency) where.push(`c.currency = ${bind(filter.currency)}`);
  if (filter.types?.length) where.push(kindCondition('c.kind', [...new Set(filter.types)], bind));
  return where;
}

export function balanceTransactionListSpec(filter: BalanceTransactionFilter): ListSpec {
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value)}`;
  return {
    table: 'ledger_balance_changes',
    alias: 'c',
    where: conditions(filter, bind),
    params,
    select: PROJECTION,
    from: SOURCE,
    merchantId: filter.merchantId,
    cursorColumn: 'public_id',
    noun: 'balance transaction',
  };
}

/** Rows a CSV export reads per round trip: a few hundred kB at a time, whatever the total. */
const FETCH_ROWS = 1000;

@Injectable()
export class BalanceTransactionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(
    filter: BalanceTransactionFilter,
    page: PageRequest,
  ): Promise<ListResult<BalanceTransactionRow>> {
    return queryList<BalanceTransactionRow>(
      this.dataSource,
      balanceTransactionListSpec(filter),
      page,
    );
  }

  /** One of the merchant's balance transactions (a sub-merchant's included), or undefined. */
  async findOne(merchantId: string, publicId: string): Promise<BalanceTransactionRow | undefined> {
    const rows: BalanceTransactionRow[] = await this.dataSource.query(
      `SELECT ${PROJECTION} FROM ${SOURCE} WHERE c.public_id = $1 AND c.merchant_id = $2`,
      [publicId, merchantId],
    );
    return rows[0];
  }

  /** Where `starting_after` points among the merchant's rows, or undefined. */
  async cursorPosition(
    merchantId: string,
    publicId: string,
  ): Promise<{ createdAt: string; id: string } | undefined> {
    const rows: Array<{ created_at: string; id: string }> = await this.dataSource.query(
      `SELECT created_at::text AS created_at, id FROM ledger_balance_changes
        WHERE public_id = $1 AND merchant_id = $2`,
      [publicId, merchantId],
    );
    return rows[0] && { createdAt: rows[0].created_at, id: rows[0].id };
  }

  /**
   * Every matching row, newest first, in batches of FETCH_ROWS through a server-side cursor: the
   * process holds one batch at a time however many rows match, and reads the next one only when
   * the consumer asks for it (a slow client slows the reads instead of filling memory). One
   * REPEATABLE READ transaction: the export is one snapshot of the ledger. Stopping the iteration
   * early (a client gone) closes the cursor and frees the connection.
   */
  async *stream(
    filter: BalanceTransactionFilter,
    after?: { createdAt: string; id: string },
  ): AsyncGenerator<BalanceTransactionRow[]> {
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    const where = conditions(filter, bind);
    if (after) {
      where.push(
        `(c.created_at, c.id) < (${bind(after.createdAt)}::timestamptz, ${bind(after.id)}::bigint)`,
      );
    }
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction('REPEATABLE READ');
      await runner.query(
        `DECLARE balance_statement NO SCROLL CURSOR FOR
           SELECT ${PROJECTION} FROM ${SOURCE} WHERE ${where.join(' AND ')}
            ORDER BY c.created_at DESC, c.id DESC`,
        params,
      );
      for (;;) {
        const rows: BalanceTransactionRow[] = await runner.query(
          `FETCH ${FETCH_ROWS} FROM balance_statement`,
        );
        if (rows.length) yield rows;
        if (rows.length < FETCH_ROWS) break;
      }
      await runner.commitTransaction();
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  }
}
