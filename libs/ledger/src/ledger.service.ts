import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import { LedgerEntry, MerchantBalance } from './ledger.types';

@Injectable()
export class LedgerService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Appends a balanced entry in the caller's transaction. Returns false, writing nothing, when an
   * entry with this reference already exists: a retried posting can never count twice.
   */
  async post(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    const lines = entry.lines.filter((line) => !line.amount.isZero());
    const total = lines.reduce((sum, line) => sum.plus(line.amount), new Decimal(0));
    if (!total.isZero()) {
      throw new Error(
        `Ledger entry ${entry.reference} does not balance (off by ${total.toFixed()})`,
      );
    }
    if (!lines.length) return false;
    const inserted: Array<{ id: string }> = await manager.query(
      `INSERT INTO ledger_entries (reference, kind) VALUES ($1, $2)
       ON CONFLICT (reference) DO NOTHING RETURNING id`,
      [entry.reference, entry.kind],
    );
    if (!inserted.length) return false;
    await manager.query(
      `INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id, sub_merchant_id)
       SELECT $1, unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::numeric[]),
              unnest($6::text[]), unnest($7::text[])`,
      [
        inserted[0].id,
        lines.map((line) => line.account),
        lines.map((line) => line.currency),
        lines.map((line) => line.network),
        lines.map((line) => line.amount.toFixed()),
        lines.map((line) => line.merchantId ?? null),
        lines.map((line) => line.subMerchantId ?? null),
      ],
    );
    return true;
  }

  /** Balances of a merchant's accounts (its own and its sub-merchants'), non-zero history only. */
  async merchantBalances(merchantId: string): Promise<MerchantBalance[]> {
    const rows: Array<{
      sub_merchant_id: string | null;
      currency: string;
      network: string;
      amount: string;
    }> = await this.dataSource.query(
      `SELECT sub_merchant_id, currency, network, -sum(amount) AS amount
         FROM ledger_lines WHERE merchant_id = $1
        GROUP BY sub_merchant_id, currency, network
        ORDER BY network, currency, sub_merchant_id NULLS FIRST`,
      [merchantId],
    );
    return rows.map((row) => ({
      merchantId,
      subMerchantId: row.sub_merchant_id,
      currency: row.currency,
      network: row.network,
      amount: new Decimal(row.amount),
    }));
  }
}
