import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import { queryPrepared } from '@app/database';
import { MERCHANT_ACCOUNT_KINDS } from './accounts';
import { LedgerEntry, LedgerLine, MerchantBalance } from './ledger.types';

@Injectable()
export class LedgerService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Appends an entry in the caller's transaction. Its lines must balance per currency and network
   * (checked here, and again by a trigger at the end of the one statement that writes them).
   * Returns false, writing nothing, when an entry with this reference already exists: a retried
   * posting can never count twice.
   *
   * Each line locks its account's balance row (the ledger_balances trigger) until the caller's
   * transaction ends. Lines are written in account order, so every posting takes those locks in one
   * global order and two postings can never deadlock (a payout hold locks `merchant:` then
   * `merchant_held:`, its release would otherwise lock them the other way round). Account order
   * is byte order (COLLATE "C", compareAccounts), whatever the database's collation.
   */
  async post(manager: EntityManager, entry: LedgerEntry): Promise<boolean> {
    const [posted] = await this.postMany(manager, [entry]);
    return posted;
  }

  /**
   * Several entries in one statement (settling a block's payments posts hundreds at once); per
   * entry, true when it was posted. An entry whose reference exists already writes nothing, its
   * lines included: the lines join only the entries this statement inserted.
   */
  async postMany(manager: EntityManager, entries: LedgerEntry[]): Promise<boolean[]> {
    const { postable, lines } = postableLines(entries);
    if (!postable.length) return entries.map(() => false);
    // One JSON document rather than one array per column (see insertDetected): amounts travel as
    // decimal strings and become numeric in SQL, exactly. Lines go in account order (the order
    // every posting locks balances in; the balances trigger keeps it too), compared as bytes.
    const inserted: Array<{ reference: string }> = await manager.query(
      `WITH entry AS (
         INSERT INTO ledger_entries (reference, kind)
         SELECT e.reference, e.kind FROM json_to_recordset($1::json) AS e(reference text, kind text)
         ON CONFLICT (reference) DO NOTHING RETURNING id, reference),
       ${INSERT_LINES}
       SELECT reference FROM entry`,
      [
        JSON.stringify(postable.map(({ reference, kind }) => ({ reference, kind }))),
        JSON.stringify(lines),
      ],
    );
    const posted = new Set(inserted.map((row) => row.reference));
    await recordFeeReceipts(
      manager,
      postable.filter((entry) => posted.has(entry.reference)),
    );
    return entries.map((entry) => posted.has(entry.reference));
  }

  /**
   * Posts the entry only if the credit balance of `account` covers `amount`, in one statement that
   * locks the account's balance row first (as lockCreditBalance) and keeps it locked until the
   * caller's transaction ends. A hold's lock is then held for the rest of its transaction only,
   * not from a read to a later write: the one merchant's spends queue on that row, so every
   * round trip inside it divides the merchant's rate. `available` is the balance before the entry.
   */
  async postIfCovered(
    manager: EntityManager,
    entry: LedgerEntry,
    account: string,
    amount: Decimal,
  ): Promise<{ posted: boolean; available: Decimal }> {
    const { postable, lines } = postableLines([entry]);
    if (!postable.length) throw new Error(`Ledger entry ${entry.reference} has no lines`);
    // The lock is taken by the CTE before any line is written (a CTE with FOR UPDATE runs once,
    // in full, and waits for the row's holder; then it reads the row as that holder left it).
    const [row] = await queryPrepared<{ available: string | null; posted: boolean }>(
      manager,
      `WITH covered AS (
         SELECT -balance AS available FROM ledger_balances WHERE account = $3 FOR UPDATE),
       entry AS (
         INSERT INTO ledger_entries (reference, kind)
         SELECT e.reference, e.kind FROM json_to_recordset($1::json) AS e(reference text, kind text)
          WHERE (SELECT available FROM covered) >= $4::numeric
         ON CONFLICT (reference) DO NOTHING RETURNING id, reference),
       ${INSERT_LINES}
       SELECT (SELECT available FROM covered)::text AS available,
              EXISTS (SELECT 1 FROM entry) AS posted`,
      [
        JSON.stringify([{ reference: entry.reference, kind: entry.kind }]),
        JSON.stringify(lines),
        account,
        amount.toFixed(),
      ],
    );
    return { posted: row.posted, available: new Decimal(row.available ?? 0) };
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

/** Networks whose fees are final once booked (TRON's chain family: solidified blocks only). */
const FINAL_WHEN_BOOKED = ['TRON'];

/**
 * The receipts the fees just posted were read from, in the same transaction as their entries:
 * every fee booked from a receipt is then checked again once final (NetworkFeeFinality in
 * libs/treasury), whichever flow booked it. Only entries this statement posted: a repeated
 * posting records nothing either.
 */
async function recordFeeReceipts(manager: EntityManager, posted: LedgerEntry[]): Promise<void> {
  const receipts = posted.flatMap(({ feeReceipt }) =>
    feeReceipt
      ? [
          {
            network: feeReceipt.network,
            tx_hash: feeReceipt.txHash,
            fee: feeReceipt.feeBaseUnits.toString(),
            block_number: feeReceipt.block?.number ?? null,
            block_hash: feeReceipt.block?.hash.toLowerCase() ?? null,
            succeeded: feeReceipt.succeeded,
          },
        ]
      : [],
  );
  if (!receipts.length) return;
  // TRON fees are read from solidified (irreversible) blocks: no reorg can change them, and the
  // pass that makes fees final is EVM only. Recorded already final (one record of every fee
  // booked from a receipt), they stay out of the not-final index and of every pass's query.
  await manager.query(
    `INSERT INTO network_fee_receipts
            (network, tx_hash, fee_base_units, block_number, block_hash, succeeded, final_at)
     SELECT r.network, r.tx_hash, r.fee::numeric, r.block_number, r.block_hash, r.succeeded,
            CASE WHEN r.network = ANY($2::text[]) THEN now() END
       FROM json_to_recordset($1::json)
         AS r(network text, tx_hash text, fee text, block_number bigint, block_hash text,
              succeeded boolean)
     ON CONFLICT (network, tx_hash) DO NOTHING`,
    [JSON.stringify(receipts), FINAL_WHEN_BOOKED],
  );
}

/** The ledger_lines insert of a posting statement: the lines of the entries its `entry` CTE wrote. */
const INSERT_LINES = `line AS (
         INSERT INTO ledger_lines (entry_id, account, currency, network, amount, merchant_id,
                                   sub_merchant_id)
         SELECT entry.id, l.account, l.currency, l.network, l.amount, l.merchant_id,
                l.sub_merchant_id
           FROM json_to_recordset($2::json)
             AS l(reference text, account text, currency text, network text, amount numeric,
                  merchant_id text, sub_merchant_id text)
           JOIN entry ON entry.reference = l.reference
          ORDER BY l.account COLLATE "C")`;

/** The entries with a non-zero line (each checked to balance) and their lines as JSON rows. */
function postableLines(entries: LedgerEntry[]): { postable: LedgerEntry[]; lines: object[] } {
  const postable: LedgerEntry[] = [];
  const lines: object[] = [];
  for (const entry of entries) {
    const nonZero = entry.lines.filter((line) => !line.amount.isZero());
    assertBalancedPerToken(entry.reference, nonZero);
    if (!nonZero.length) continue;
    postable.push(entry);
    for (const line of nonZero) {
      lines.push({
        reference: entry.reference,
        account: line.account,
        currency: line.currency,
        network: line.network,
        amount: line.amount.toFixed(),
        merchant_id: line.merchantId ?? null,
        sub_merchant_id: line.subMerchantId ?? null,
      });
    }
  }
  return { postable, lines };
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
