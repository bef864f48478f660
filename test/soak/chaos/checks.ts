import Decimal from 'decimal.js';
import { getAddress } from 'ethers';
import { Client } from 'pg';
import { transfersFrom } from '../../support/payout-chain';
import type { Devnet } from '../../support/devnet';
import type { AnswerRecord } from './api-client';
import type { FakeTronNode } from '../../support/fake-tron-node';
import { tronAddressOf } from '../../support/tron-sweep-env';
import { minedTronTransactions } from '../tron-chain';
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
  // The nemesis's PostgreSQL stop terminates this session (57P01): during the query the query
  // fails with it (the caller's to handle); while the client is idle (connected, or ending) pg
  // emits it as an 'error' event instead, which would end this process.
  client.on('error', () => undefined);
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

/**
 * Each of our transfers booked once (a session's transaction or an unmatched transfer), on both
 * chains; a transfer a reorg took out for good (another transaction took its nonce) booked
 * nowhere.
 */
export async function creditedOnce(url: string, sessions: LoadSession[]): Promise<Invariant> {
  const sent = sessions.flatMap((session) =>
    session.sent.map((transfer) => ({ ...transfer, session: session.id })),
  );
  const expected = new Map(
    sent.map((transfer) => [transfer.hash, transfer.reorg === 'out' ? 0 : 1]),
  );
  const rows = await query<{ hash: string; n: string }>(
    url,
    `SELECT h AS hash,
            (SELECT count(*) FROM session_transactions t WHERE lower(t.tx_hash) = h AND t.status = 'Confirmed')
          + (SELECT count(*) FROM unmatched_transfers u WHERE lower(u.tx_hash) = h AND u.status <> 'reverted') AS n
       FROM unnest($1::text[]) AS h`,
    [sent.map((transfer) => transfer.hash)],
  );
  const wrong = rows.filter((row) => Number(row.n) !== expected.get(row.hash));
  const out = sent.filter((transfer) => transfer.reorg === 'out').length;
  const tron = sessions.filter((session) => session.network === 'TRON');
  return {
    name: 'each payment credited once (a payment reorged out for good: never)',
    held: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${sent.length} transfers booked wrongly: ${JSON.stringify(
          wrong.slice(0, 5).map((row) => ({ ...row, expected: expected.get(row.hash) })),
        )}`
      : `${sent.length} transfers (${tron.reduce((sum, s) => sum + s.sent.length, 0)} on TRON), each booked once${out ? `; ${out} reorged out for good, booked nowhere` : ''}`,
  };
}

/**
 * Our payments in blocks a reorg dropped: each one booked before the reorg was taken back (a
 * deposit_reversal of its session) and, when re-mined, credited again (a deposit after it);
 * one reorged out for good leaves its session's deposits summing to nothing for it. Reorged
 * payments never credited before the reorg need no reversal: counted, not judged.
 */
export async function reorgedPayments(url: string, sessions: LoadSession[]): Promise<Invariant> {
  const touched = sessions.filter((session) => session.sent.some((sent) => sent.reorg));
  if (!touched.length)
    return {
      name: 'payments reorged out taken back, credited again when re-mined',
      held: true,
      detail: 'no reorg dropped one of our payments',
    };
  const rows = await query<{ session: string; kinds: string[] }>(
    url,
    `SELECT split_part(reference, ':', 2) AS session, array_agg(kind::text ORDER BY id) AS kinds
       FROM ledger_entries WHERE reference LIKE ANY($1::text[]) GROUP BY 1`,
    [touched.map((session) => `checkout_session:${session.id}:%`)],
  );
  const kinds = new Map(rows.map((row) => [row.session, row.kinds]));
  const problems: string[] = [];
  let takenBack = 0;
  let reCredited = 0;
  for (const session of touched) {
    const entries = kinds.get(session.id) ?? [];
    const reversals = entries.filter((kind) => kind === 'deposit_reversal').length;
    const deposits = entries.filter((kind) => kind === 'deposit').length;
    const remined = session.sent.filter((sent) => sent.reorg !== 'out').length;
    if (reversals) takenBack++;
    // Every reversal undoes one deposit: what is left credited is one per payment on chain.
    if (deposits - reversals > remined)
      problems.push(`${session.id}: ${JSON.stringify(entries)} for ${remined} payments on chain`);
    else if (reversals && deposits - reversals === remined) reCredited++;
  }
  return {
    name: 'payments reorged out taken back, credited again when re-mined',
    held: problems.length === 0,
    detail: problems.length
      ? problems.slice(0, 5).join('; ')
      : `${touched.length} sessions with a reorged payment: ${takenBack} taken back, ${reCredited} of those credited again`,
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
    `SELECT id, status, currency, net_amount::text, to_address, tx_hash FROM payouts
      WHERE merchant_id = $1 AND network = 'ETHEREUM'`,
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
      name: 'each ETHEREUM payout on chain exactly once, status matching the chain',
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

/**
 * TRON payouts (refunds' included) on the fake node exactly once: the hot wallet's TRC-20
 * transfers are exactly the Completed TRON payouts' (to, net amount, txid); none still open.
 */
export async function tronPayoutsMatchChain(
  url: string,
  node: FakeTronNode,
  hotKey: string,
  merchantId: string,
): Promise<Invariant> {
  const hot = tronAddressOf(hotKey);
  const payouts = await query<{
    status: string;
    net_amount: string;
    to_address: string;
    tx_hash: string | null;
  }>(
    url,
    `SELECT status, net_amount::text, to_address, tx_hash FROM payouts
      WHERE merchant_id = $1 AND network = 'TRON'`,
    [merchantId],
  );
  const mined = await minedTronTransactions(node);
  const onChain = mined.flatMap((transaction) =>
    transaction.transfers
      .filter((transfer) => transfer.from === hot)
      .map((transfer) => `${transaction.txid} ${transfer.to} ${transfer.amount}`),
  );
  const booked = payouts
    .filter((payout) => payout.status === 'Completed')
    .map(
      (payout) =>
        `${payout.tx_hash!.replace(/^0x/, '').toLowerCase()} ${payout.to_address} ${new Decimal(payout.net_amount).mul(1e6).toFixed(0)}`,
    );
  const chainSet = new Set(onChain);
  const bookedSet = new Set(booked);
  const mismatches = [
    ...onChain
      .filter((line) => !bookedSet.has(line))
      .map((line) => `on chain, not Completed: ${line}`),
    ...booked
      .filter((line) => !chainSet.has(line))
      .map((line) => `Completed, not on chain: ${line}`),
    ...(chainSet.size !== onChain.length ? ['a transfer twice'] : []),
  ];
  const open = payouts.filter((payout) => ['Pending', 'Processing'].includes(payout.status));
  return {
    name: 'each TRON payout on chain exactly once, status matching the chain',
    held: mismatches.length === 0 && open.length === 0,
    detail:
      mismatches.length || open.length
        ? `${mismatches.slice(0, 5).join('; ')} ${open.length} still open`
        : `${booked.length} Completed TRON payouts = the TRON hot wallet's ${onChain.length} transfers; ${payouts.length - booked.length} others sent nothing`,
  };
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
