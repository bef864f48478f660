import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import { MERCHANT_ACCOUNT_KINDS } from './accounts';
import { LedgerEntry, LedgerLine, MerchantBalance } from './ledger.types';

@Injectable()
export class LedgerService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Appends an entry in the caller's transaction. Its lines must balance per currency and network
   * (checked here and again by a trigger at commit). Returns false, writing nothing, when an entry
   * with this reference already exists: a retried posting can never count twice.
   *
   * Each line locks its account's balance row (the ledger_balances trigger) until the caller's
   * transaction ends. Lines are written in account order, so every posting takes those locks in one
   * global order and two postings can never deadlock (a payout hold locks `merchant:` then
   * `merchant_held:`, its release would otherwise lock them the other way round).
   */
  async post(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    const [posted] = await this.postMany(manager, [entry]);
    return posted;
  }

  /**
   * Several entries in two statements (settling a block's payments posts hundreds at once); per
   * entry, true when it was posted. The lines of all entries are written in one account order.
   */
  async postMany(manager: EntityManager, entries: LedgerEntry[]): Promise<boolean[]> {
    const linesOf = new Map<string, LedgerLine[]>();
    for (const entry of entries) {
      const lines = entry.lines.filter((line) => !line.amount.isZero());
      assertBalancedPerToken(entry.reference, lines);
      if (lines.length) linesOf.set(entry.reference, lines);
    }
    const postable = entries.filter((entry) => linesOf.has(entry.reference));
    if (!postable.length) return entries.map(() => false);
    const inserted: Array<{ id: string; reference: string }> = await manager.query(
      `INSERT INTO ledger_entries (reference, kind)
       SELECT unnest($1::text[]), unnest($2::text[])
       ON CONFLICT (reference) DO NOTHING RETURNING id, reference`,
      [postable.map((entry) => entry.reference), postable.map((entry) => entry.kind)],
    );
    const entryIds = new Map(inserted.map((row) => [row.reference, row.id]));
    const lines = inserted
      .flatMap((row) =>
        (linesOf.get(row.reference) ?? []).map((line) => ({ ...line, entryId: row.id })),
      )
      .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
    if (lines.length) {
      // One JSON document rather than one array per column (see insertDetected): amounts travel
      // as decimal strings and become numeric in SQL, exactly.
      await manager.query(
        `INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id, sub_merchant_id)
         SELECT l.entry_id, l.account, l.currency, l.network, l.amount, l.merchant_id, l.sub_merchant_id
           FROM json_to_recordset($1::json)
             AS l(entry_id bigint, account text, currency text, network text, amount numeric,
                  merchant_id text, sub_merchant_id text)`,
        [
          JSON.stringify(
            lines.map((line) => ({
              entry_id: line.entryId,
              account: line.account,
              currency: line.currency,
              network: line.network,
              amount: line.amount.toFixed(),
              merchant_id: line.merchantId ?? null,
              sub_merchant_id: line.subMerchantId ?? null,
            })),
          ),
        ],
      );
    }
    return entries.map((entry) => entryIds.has(entry.reference));
  }

  /**
   * The credit balance of a liability account (what the service owes on it), with the account's
   * balance row locked until the caller's transaction ends: whoever holds the lock can spend the
   * balance without anyone else spending it in between. Zero for an account with no history.
   */
  async lockCreditBalance(manager: EntityManager, account: string): Promise<Decimal> {
    const rows: Array<{ balance: string }> = await manager.query(
      `SELECT balance FROM ledger_balances WHERE account = $1 FOR UPDATE`,
      [account],
    );
    return rows.length ? new Decimal(rows[0].balance).negated() : new Decimal(0);
  }

  /** Available and held balances of a merchant (its own and its sub-merchants'), with history only. */
  async merchantBalances(merchantId: string): Promise<MerchantBalance[]> {
    const rows: Array<{
      sub_merchant_id: string | null;
      currency: string;
      network: string;
      available: string;
      held: string;
    }> = await this.dataSource.query(
      `SELECT sub_merchant_id, currency, network,
              -COALESCE(sum(balance) FILTER (WHERE kind = $2), 0) AS available,
              -COALESCE(sum(balance) FILTER (WHERE kind = $3), 0) AS held
         FROM ledger_balances WHERE merchant_id = $1 AND kind IN ($2, $3)
        GROUP BY sub_merchant_id, currency, network
        ORDER BY network, currency, sub_merchant_id NULLS FIRST`,
      [merchantId, MERCHANT_ACCOUNT_KINDS.available, MERCHANT_ACCOUNT_KINDS.held],
    );
    return rows.map((row) => ({
      merchantId,
      subMerchantId: row.sub_merchant_id,
      currency: row.currency,
      network: row.network,
      available: new Decimal(row.available),
      held: new Decimal(row.held),
    }));
  }
}

function assertBalancedPerToken(reference: string, lines: LedgerLine[]): void {
  const totals = new Map<string, Decimal>();
  for (const line of lines) {
    const token = `${line.currency} on ${line.network}`;
    totals.set(token, (totals.get(token) ?? new Decimal(0)).plus(line.amount));
  }
  for (const [token, total] of totals) {
    if (!total.isZero()) {
      throw new Error(
        `Ledger entry ${reference} does not balance in ${token} (off by ${total.toFixed()})`,
      );
    }
  }
}
