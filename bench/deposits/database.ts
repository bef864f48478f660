import { randomBytes, randomInt } from 'node:crypto';
import { getAddress, hexlify } from 'ethers';
import type { Client } from 'pg';
import { epochMs } from '../kit/clock';

/** A checkout session of the benchmark: where it is paid and how much it expects. */
export interface BenchSession {
  id: string;
  payAddress: string;
  /** Decimal string in whole tokens, e.g. "49.99"; the payment sends exactly this. */
  amount: string;
}

// Sessions are open for the whole run: nothing may expire (and be settled by the expiry job)
// while it is being measured.
const SESSION_LIFETIME_MINUTES = 180;
// The configured default fee rule (FEE_PERCENT / FEE_FIXED, not set here): what the API stores
// on a session of a merchant without its own rule.
const DEFAULT_FEE_PERCENT = '1';
const DEFAULT_FEE_FIXED = '0';

/**
 * Sessions with fresh random checksummed addresses (what the EVM adapter reports as a transfer's
 * recipient) and prices in cents, so the fee rounding and the ledger sums are exercised.
 */
export function randomSessions(count: number, idPrefix: string): BenchSession[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `cs_${idPrefix}${String(index).padStart(6, '0')}`,
    payAddress: getAddress(hexlify(randomBytes(20))),
    amount: `${randomInt(1, 500)}.${String(randomInt(0, 100)).padStart(2, '0')}`,
  }));
}

/**
 * Inserts Pending ETHEREUM/USDT sessions in one statement, with the columns the API's
 * CheckoutSessionsRepository.insertWithAddress writes, the fee rule included (the merchant's,
 * part by part, else the configured default). `tokenContract`: the devnet's USDT, checksummed
 * as the watcher compares it.
 */
export async function insertSessions(
  db: Client,
  batch: { merchantId: string; tokenContract: string; sessions: BenchSession[] },
): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (id, merchant_id, livemode, status, amount, currency, network,
       chain_family, currency_contract, pricing_amount, pricing_currency, exchange_rate,
       expires_at, key_fingerprint, sub_merchant_id, pay_address, derivation_index,
       fee_percent, fee_fixed)
     SELECT s.id, $4, false, 'Pending', s.amount, 'USDT', 'ETHEREUM', 'EVM', $5, s.amount, 'USD',
            1, now() + make_interval(mins => $6), 'bench-random-addresses', NULL, s.address,
            s.ordinal::int, COALESCE(m.fee_percent, $7::numeric), COALESCE(m.fee_fixed, $8::numeric)
       FROM unnest($1::text[], $2::text[], $3::numeric[]) WITH ORDINALITY
            AS s(id, address, amount, ordinal)
       JOIN merchants m ON m.id = $4`,
    [
      batch.sessions.map((session) => session.id),
      batch.sessions.map((session) => session.payAddress),
      batch.sessions.map((session) => session.amount),
      batch.merchantId,
      batch.tokenContract,
      SESSION_LIFETIME_MINUTES,
      DEFAULT_FEE_PERCENT,
      DEFAULT_FEE_FIXED,
    ],
  );
}

/**
 * When each session's settlement started: paid_at is now() of the scan tick's transaction, so
 * sessions settled by the same tick share it.
 */
export async function paidAtBySession(db: Client, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; paid_at: number }>(
    `SELECT id, ${epochMs('paid_at')} AS paid_at FROM checkout_sessions
      WHERE id = ANY($1) AND paid_at IS NOT NULL`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.paid_at]));
}

/** Which of these sessions read Paid now. */
export async function paidAmong(db: Client, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM checkout_sessions WHERE id = ANY($1) AND status = 'Paid'`,
    [ids],
  );
  return rows.map((row) => row.id);
}

/** Counted on the (merchant_id, status, ...) index: cheap enough to ask every 10 ms. */
export async function paidCount(db: Client, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM checkout_sessions WHERE merchant_id = $1 AND status = 'Paid'`,
    [merchantId],
  );
  return rows[0].n;
}

/** The scan ticks that settled a merchant's sessions: start time and how many each settled. */
export async function settlementTicks(
  db: Client,
  merchantId: string,
): Promise<Array<{ startedAt: number; sessions: number }>> {
  const { rows } = await db.query<{ startedAt: number; sessions: number }>(
    `SELECT ${epochMs('paid_at')} AS "startedAt", count(*)::int AS sessions
       FROM checkout_sessions WHERE merchant_id = $1 AND status = 'Paid'
      GROUP BY paid_at ORDER BY paid_at`,
    [merchantId],
  );
  return rows;
}

/** The moment the watcher's cursor row last moved: every full tick saves it (not a bare poll). */
export async function cursorUpdatedAt(db: Client): Promise<number | null> {
  const { rows } = await db.query<{ updated_at: number }>(
    `SELECT ${epochMs('updated_at')} AS updated_at FROM chain_cursors WHERE network = 'ETHEREUM'`,
  );
  return rows[0]?.updated_at ?? null;
}

export async function cursorBlock(db: Client): Promise<number | null> {
  const { rows } = await db.query<{ block: string }>(
    `SELECT last_scanned_block AS block FROM chain_cursors WHERE network = 'ETHEREUM'`,
  );
  return rows.length ? Number(rows[0].block) : null;
}
