import type { FakeTronNode } from '../support/fake-tron-node';
import type { TestApi, TestMerchant } from '../support/test-app';
import { baseUnits } from './evm-soak-checks';
import { minedTronTransactions } from './tron-chain';

export interface TronSoakFacts {
  api: TestApi;
  node: FakeTronNode;
  merchant: TestMerchant;
  token: string;
  hot: string;
  staking: string;
  deposits: Array<{ address: string; paid: bigint }>;
  runStart: Date;
}

/** The TRON half's proofs, read from the fake node's blocks and the books. */
export async function checkTronBooks(facts: TronSoakFacts) {
  const { api } = facts;
  const mined = await minedTronTransactions(facts.node);
  const depositAddresses = new Set(facts.deposits.map((deposit) => deposit.address));
  const ours = (owner: string) =>
    owner === facts.hot || owner === facts.staking || depositAddresses.has(owner);

  // 1. Fees: every mined transaction of ours (staking account, hot wallet, deposit addresses)
  // booked once, at exactly its info's fee; a transaction without a fee books nothing.
  const rows: Array<{ reference: string; amount: string }> = await api.dataSource.query(
    `SELECT e.reference, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
      WHERE l.account = 'network_fees:TRON:TRX' AND e.created_at >= $1`,
    [facts.runStart],
  );
  const booked = new Map(
    rows.map((row) => [row.reference.split(':').pop()!, baseUnits(row.amount, 6)] as const),
  );
  const paid = new Map(
    mined
      .filter((transaction) => ours(transaction.owner) && transaction.fee > 0n)
      .map((transaction) => [transaction.txid, transaction.fee] as const),
  );
  expect(new Map([...booked].sort())).toEqual(new Map([...paid].sort()));
  expect(paid.size).toBeGreaterThan(0);

  // 2. Every deposit swept by one transfer from its address to the hot wallet, booked once
  // (`sweep:TRON:<tx>:<log>`) for the whole amount paid.
  const sweeps = mined.flatMap((transaction) =>
    transaction.transfers
      .filter((transfer) => depositAddresses.has(transfer.from) && transfer.to === facts.hot)
      .map((transfer) => ({ ...transfer, txid: transaction.txid })),
  );
  expect(sweeps.map((sweep) => ({ from: sweep.from, amount: sweep.amount })).sort(byFrom)).toEqual(
    facts.deposits.map((deposit) => ({ from: deposit.address, amount: deposit.paid })).sort(byFrom),
  );
  const sweptEntries: Array<{ reference: string }> = await api.dataSource.query(
    `SELECT reference FROM ledger_entries WHERE kind = 'sweep' AND reference LIKE 'sweep:TRON:%'
        AND created_at >= $1`,
    [facts.runStart],
  );
  expect(sweptEntries.map((row) => row.reference).sort()).toEqual(
    sweeps.map((sweep) => `sweep:TRON:${sweep.txid}:${sweep.logIndex}`).sort(),
  );

  // 3. One transfer from the hot wallet per Completed payout (refunds' included), for its net
  // amount, in its own transaction; every Completed refund sent by exactly one of them.
  const payouts: Array<{
    status: string;
    net_amount: string;
    to_address: string;
    tx_hash: string | null;
  }> = await api.dataSource.query(
    `SELECT status, net_amount::text, to_address, tx_hash FROM payouts WHERE merchant_id = $1`,
    [facts.merchant.id],
  );
  const sent = mined.flatMap((transaction) =>
    transaction.transfers
      .filter((transfer) => transfer.from === facts.hot)
      .map((transfer) => ({ to: transfer.to, amount: transfer.amount, txid: transaction.txid })),
  );
  expect(sent.sort(byTxid)).toEqual(
    payouts
      .filter((payout) => payout.status === 'Completed')
      .map((payout) => ({
        to: payout.to_address,
        amount: baseUnits(payout.net_amount, 6),
        txid: payout.tx_hash!.replace(/^0x/, '').toLowerCase(),
      }))
      .sort(byTxid),
  );
  const refunds: Array<{ status: string; sent: number }> = await api.dataSource.query(
    `SELECT r.status,
            (SELECT count(*)::int FROM payouts p WHERE p.refund_id = r.id AND p.status = 'Completed') AS sent
       FROM refunds r WHERE r.merchant_id = $1`,
    [facts.merchant.id],
  );
  for (const refund of refunds) expect(refund.sent).toBe(refund.status === 'Completed' ? 1 : 0);

  // 4. The hot wallet holds what was swept less what was sent.
  const swept = sweeps.reduce((sum, sweep) => sum + sweep.amount, 0n);
  const out = sent.reduce((sum, transfer) => sum + transfer.amount, 0n);
  const balance = facts.node.tokenBalance(facts.token, facts.hot);
  expect(balance).toBe(swept - out);

  const [{ delegations }]: Array<{ delegations: number }> = await api.dataSource.query(
    `SELECT count(*)::int AS delegations FROM sweeps s JOIN sweep_attempts t ON t.sweep_id = s.id
      WHERE s.network = 'TRON' AND s.created_at >= $1 AND t.step = 'delegate'`,
    [facts.runStart],
  );
  expect(delegations).toBeGreaterThan(0);
  return {
    transactions: mined.filter((transaction) => ours(transaction.owner)).length,
    feesSun: [...paid.values()].reduce((sum, fee) => sum + fee, 0n).toString(),
    delegations,
    sent: sent.length,
  };
}

const byFrom = (a: { from: string }, b: { from: string }) => a.from.localeCompare(b.from);
const byTxid = (a: { txid: string }, b: { txid: string }) => a.txid.localeCompare(b.txid);
