import Decimal from 'decimal.js';
import { getAddress } from 'ethers';
import { Client } from 'pg';
import { transfersFrom } from '../../support/payout-chain';
import type { Devnet } from '../../support/devnet';
import type { AnswerRecord } from './api-client';
import type { LoadSession } from './load';

export interface Invariant {
  name: string;
  held: boolean;
  detail: string;
}

/** One query on a fresh connection (the server may have restarted since the last one). */
export async function query<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Checked every 15 s while the nemesis runs (and at the end): cheap, database-only. */
export async function continuousChecks(url: string): Promise<Invariant[]> {
  const unbalanced = await query<{ entry_id: string }>(
    url,
    `SELECT entry_id FROM ledger_lines GROUP BY entry_id, currency, network HAVING sum(amount) <> 0 LIMIT 5`,
  );
  const doubleCredits = await query<{ tx_hash: string }>(
    url,
    `SELECT lower(tx_hash) AS tx_hash, log_index FROM session_transactions WHERE status <> 'Reverted'
      GROUP BY 1, 2 HAVING count(*) > 1 LIMIT 5`,
  );
  const doubleSends = await query<{ id: string }>(
    url,
    `SELECT refund_id AS id FROM payouts WHERE refund_id IS NOT NULL AND status = 'Completed'
      GROUP BY 1 HAVING count(*) > 1 LIMIT 5`,
  );
  return [
    {
      name: 'ledger entries balanced',
      held: unbalanced.length === 0,
      detail: unbalanced.length
        ? `unbalanced entries ${JSON.stringify(unbalanced)}`
        : 'every entry sums to 0',
    },
    {
      name: 'no transfer booked twice',
      held: doubleCredits.length === 0,
      detail: doubleCredits.length ? JSON.stringify(doubleCredits) : 'none',
    },
    {
      name: 'no refund sent twice',
      held: doubleSends.length === 0,
      detail: doubleSends.length ? JSON.stringify(doubleSends) : 'none',
    },
  ];
}

/** Each of our transfers booked once: a session's transaction or an unmatched transfer. */
export async function creditedOnce(url: string, sessions: LoadSession[]): Promise<Invariant> {
  const sent = sessions.flatMap((session) =>
    session.sent.map((transfer) => ({ ...transfer, session: session.id })),
  );
  const rows = await query<{ hash: string; n: string }>(
    url,
    `SELECT h AS hash,
            (SELECT count(*) FROM session_transactions t WHERE lower(t.tx_hash) = h AND t.status = 'Confirmed')
          + (SELECT count(*) FROM unmatched_transfers u WHERE lower(u.tx_hash) = h AND u.status <> 'reverted') AS n
       FROM unnest($1::text[]) AS h`,
    [sent.map((transfer) => transfer.hash)],
  );
  const wrong = rows.filter((row) => Number(row.n) !== 1);
  return {
    name: 'each payment credited once',
    held: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${sent.length} transfers booked ≠ once: ${JSON.stringify(wrong.slice(0, 5))}`
      : `${sent.length} transfers, each booked once`,
  };
}

/**
 * Payouts (refunds' included) on chain exactly once: the hot wallet's token transfers are
 * exactly the Completed payouts' (to, net amount, tx), and each Completed refund has exactly one
 * Completed payout; nothing still Pending or Processing.
 */
export async function payoutsMatchChain(
  url: string,
  devnet: Devnet,
  hot: string,
  merchantId: string,
): Promise<Invariant[]> {
  const payouts = await query<{
    id: string;
    status: string;
    currency: string;
    net_amount: string;
    to_address: string;
    tx_hash: string | null;
  }>(
    url,
    `SELECT id, status, currency, net_amount::text, to_address, tx_hash FROM payouts WHERE merchant_id = $1`,
    [merchantId],
  );
  const mismatches: string[] = [];
  for (const currency of ['USDT', 'USDC'] as const) {
    const onChain = (await transfersFrom(devnet, currency, hot)).map(
      (transfer) => `${transfer.txHash} ${transfer.to} ${transfer.amount}`,
    );
    const booked = payouts
      .filter((payout) => payout.currency === currency && payout.status === 'Completed')
      .map(
        (payout) =>
          `${payout.tx_hash!.toLowerCase()} ${getAddress(payout.to_address)} ${new Decimal(payout.net_amount).mul(1e6).toFixed(0)}`,
      );
    const chainSet = new Set(onChain);
    const bookedSet = new Set(booked);
    for (const line of onChain)
      if (!bookedSet.has(line)) mismatches.push(`on chain, not Completed: ${line}`);
    for (const line of booked)
      if (!chainSet.has(line)) mismatches.push(`Completed, not on chain: ${line}`);
    if (chainSet.size !== onChain.length) mismatches.push(`${currency}: a transfer twice`);
  }
  const open = payouts.filter((payout) => ['Pending', 'Processing'].includes(payout.status));
  const refunds = await query<{ id: string; status: string; sent: number }>(
    url,
    `SELECT r.id, r.status,
            (SELECT count(*)::int FROM payouts p WHERE p.refund_id = r.id AND p.status = 'Completed') AS sent
       FROM refunds r WHERE r.merchant_id = $1`,
    [merchantId],
  );
  const wrongRefunds = refunds.filter(
    (refund) => refund.sent !== (refund.status === 'Completed' ? 1 : 0),
  );
  const completed = payouts.filter((payout) => payout.status === 'Completed').length;
  return [
    {
      name: 'each payout on chain exactly once, status matching the chain',
      held: mismatches.length === 0 && open.length === 0,
      detail:
        mismatches.length || open.length
          ? `${mismatches.slice(0, 5).join('; ')} ${open.length} still open`
          : `${completed} Completed payouts = the hot wallet's ${completed} transfers; ${payouts.length - completed} others sent nothing`,
    },
    {
      name: 'each refund on chain exactly once',
      held: wrongRefunds.length === 0,
      detail: wrongRefunds.length
        ? JSON.stringify(wrongRefunds.slice(0, 5))
        : `${refunds.filter((refund) => refund.status === 'Completed').length} Completed refunds, one payout each; ${refunds.length} in all`,
    },
  ];
}

/** Every event of the merchant delivered at least once to the receiver that stayed up. */
export async function eventsDelivered(
  url: string,
  merchantId: string,
  received: Set<string>,
): Promise<{ total: number; missing: string[] }> {
  const events = await query<{ id: string }>(url, `SELECT id FROM events WHERE merchant_id = $1`, [
    merchantId,
  ]);
  return {
    total: events.length,
    missing: events.map((event) => event.id).filter((id) => !received.has(id)),
  };
}

/** Objects whose events' sequences are not exactly 1..n. */
export async function sequenceGaps(url: string, merchantId: string) {
  return query<{ object_id: string; sequences: number[] }>(
    url,
    `SELECT object_id, array_agg(sequence ORDER BY sequence) AS sequences FROM events WHERE merchant_id = $1
      GROUP BY object_id HAVING count(*) <> max(sequence) OR count(DISTINCT sequence) <> count(*) LIMIT 20`,
    [merchantId],
  );
}

/** 5xx answers: only 503 service_unavailable, and only while PostgreSQL was down (+ 30 s). */
export function serverErrors(
  answers: AnswerRecord[],
  postgresDown: Array<{ from: number; to: number }>,
): Invariant {
  const graceMs = 30_000;
  const during = (at: number) =>
    postgresDown.some((window) => at >= window.from && at <= window.to + graceMs);
  const fivexx = answers.filter((answer) => answer.status >= 500);
  const allowed = fivexx.filter(
    (answer) => answer.status === 503 && answer.code === 'service_unavailable' && during(answer.at),
  );
  const others = fivexx.filter((answer) => !allowed.includes(answer));
  return {
    name: 'no 5xx but 503 service_unavailable while PostgreSQL is down',
    held: others.length === 0,
    detail: `${answers.length} answers, ${allowed.length} 503 during PostgreSQL outages${
      others.length
        ? `; unexpected: ${JSON.stringify(
            others
              .slice(0, 8)
              .map((answer) => ({ ...answer, at: new Date(answer.at).toISOString() })),
          )}${others.length > 8 ? ` and ${others.length - 8} more` : ''}`
        : ''
    }`,
  };
}
