import Decimal from 'decimal.js';
import { getAddress, toQuantity } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '@app/chains/contracts/contract-artifacts';
import type { Devnet } from '../support/devnet';
import { transfersFrom } from '../support/payout-chain';
import type { TestApi, TestMerchant } from '../support/test-app';
import type { PooledTransaction } from './evm-faults';

const SWEPT = SWEEP_DELEGATE_INTERFACE.getEvent('Swept')!;
const CURRENCIES = ['USDT', 'USDC'] as const;

/** A ledger amount (numeric(38, 18)) in base units. */
export const baseUnits = (amount: string, decimals: number): bigint =>
  BigInt(new Decimal(amount).mul(new Decimal(10).pow(decimals)).toFixed(0));

export interface EvmSoakFacts {
  api: TestApi;
  devnet: Devnet;
  merchant: TestMerchant;
  hot: string;
  sweeper: string;
  delegate: string;
  firstBlock: number;
  runStart: Date;
  /** Our transactions waiting in the pool when a reverting block or a base-fee spike struck. */
  pooledBy: { revert: PooledTransaction[]; spike: PooledTransaction[] };
  /** What each SIGKILL left in flight. */
  strikes: Array<Array<{ kind: string; id: string }>>;
}

interface Receipt {
  hash: string;
  from: string;
  nonce: number;
  status: number;
  fee: bigint;
}

/** `read` of every item, 25 at a time, in order. */
export async function inBatches<T, R>(items: T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 25)
    results.push(...(await Promise.all(items.slice(i, i + 25).map(read))));
  return results;
}

/** Every receipt of the hot wallet's and the sweeper's transactions, block by block. */
async function ourReceipts(facts: EvmSoakFacts): Promise<Map<string, Receipt>> {
  const ours = new Set([facts.hot.toLowerCase(), facts.sweeper.toLowerCase()]);
  const receipts = new Map<string, Receipt>();
  const head = await facts.devnet.head();
  const numbers = Array.from(
    { length: head - facts.firstBlock + 1 },
    (_, i) => facts.firstBlock + i,
  );
  const blocks = await inBatches(numbers, (block) =>
    Promise.all([
      facts.devnet.provider.send('eth_getBlockReceipts', [toQuantity(block)]),
      facts.devnet.provider.send('eth_getBlockByNumber', [toQuantity(block), true]),
    ]),
  );
  for (const [rows, full] of blocks) {
    const nonces = new Map<string, number>(
      (full.transactions as Array<{ hash: string; nonce: string }>).map((tx) => [
        tx.hash.toLowerCase(),
        Number(tx.nonce),
      ]),
    );
    for (const receipt of rows as Array<Record<string, string>>) {
      if (!ours.has(receipt.from.toLowerCase())) continue;
      const hash = receipt.transactionHash.toLowerCase();
      receipts.set(hash, {
        hash,
        from: receipt.from.toLowerCase(),
        nonce: nonces.get(hash)!,
        status: Number(receipt.status),
        fee: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice),
      });
    }
  }
  return receipts;
}

/** What the books say each of our ETHEREUM transactions cost: `network_fee:ETHEREUM:<tx>`. */
async function bookedFees(facts: EvmSoakFacts): Promise<Map<string, bigint>> {
  const rows: Array<{ reference: string; amount: string }> = await facts.api.dataSource.query(
    `SELECT e.reference, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
      WHERE l.account = 'network_fees:ETHEREUM:ETH' AND e.created_at >= $1`,
    [facts.runStart],
  );
  return new Map(
    rows.map((row) => [row.reference.split(':').pop()!.toLowerCase(), baseUnits(row.amount, 18)]),
  );
}

/**
 * The ETHEREUM half's proofs, all read from the chain and the books after the worker stopped.
 * Returns the figures worth printing.
 */
export async function checkEvmBooks(facts: EvmSoakFacts) {
  const { api, devnet, merchant } = facts;
  const receipts = await ourReceipts(facts);

  // 1. Every transaction of the hot wallet and the sweeper booked once, at exactly its receipt's
  // gasUsed × effectiveGasPrice, reverted ones included; nothing else booked as ETHEREUM gas.
  const fees = await bookedFees(facts);
  expect(new Map([...fees].sort())).toEqual(
    new Map([...receipts.values()].map((receipt) => [receipt.hash, receipt.fee] as const).sort()),
  );

  // 2. Reverting blocks: a payout and a sweep batch in the pool were mined and reverted; each
  // ended Failed with its gas booked.
  const reverted = facts.pooledBy.revert
    .map((pooled) => receipts.get(pooled.hash))
    .filter((receipt): receipt is Receipt => receipt?.status === 0);
  const failedPayouts: Array<{ tx_hash: string; status: string }> = await api.dataSource.query(
    `SELECT a.tx_hash, p.status FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
      WHERE lower(a.tx_hash) = ANY($1::text[])`,
    [reverted.map((receipt) => receipt.hash)],
  );
  const failedSweeps: Array<{ tx_hash: string; status: string }> = await api.dataSource.query(
    `SELECT a.tx_hash, s.status FROM sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id
      WHERE lower(a.tx_hash) = ANY($1::text[])`,
    [reverted.map((receipt) => receipt.hash)],
  );
  expect(failedPayouts.length).toBeGreaterThan(0);
  expect(failedSweeps.length).toBeGreaterThan(0);
  for (const row of [...failedPayouts, ...failedSweeps]) {
    const hash = row.tx_hash.toLowerCase();
    expect({ hash, status: row.status, fee: fees.get(hash) }).toEqual({
      hash,
      status: 'Failed',
      fee: receipts.get(hash)!.fee,
    });
  }

  // 3. The base-fee spike: transactions in the pool then were outbid by a later attempt of the
  // same payout or sweep, whose receipt used the stranded transaction's nonce.
  const stranded = facts.pooledBy.spike.map((pooled) => pooled.hash);
  const replacements: Array<{ kind: string; stranded: string; mined: string | null }> =
    await api.dataSource.query(
      `SELECT 'payout' AS kind, a.tx_hash AS stranded, p.tx_hash AS mined
         FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
        WHERE lower(a.tx_hash) = ANY($1::text[])
          AND EXISTS (SELECT 1 FROM payout_attempts b WHERE b.payout_id = a.payout_id
                        AND b.attempt_number > a.attempt_number AND b.tx_hash = p.tx_hash)
       UNION ALL
       SELECT 'sweep', a.tx_hash, s.tx_hash
         FROM sweep_attempts a JOIN sweeps s ON s.id = a.sweep_id
        WHERE lower(a.tx_hash) = ANY($1::text[])
          AND EXISTS (SELECT 1 FROM sweep_attempts b WHERE b.sweep_id = a.sweep_id
                        AND b.attempt_number > a.attempt_number AND b.tx_hash = s.tx_hash)`,
      [stranded],
    );
  const spiked = new Map(facts.pooledBy.spike.map((pooled) => [pooled.hash, pooled]));
  for (const row of replacements) {
    const original = spiked.get(row.stranded.toLowerCase())!;
    const mined = receipts.get(row.mined!.toLowerCase());
    expect({ kind: row.kind, from: mined?.from, nonce: mined?.nonce }).toEqual({
      kind: row.kind,
      from: original.from,
      nonce: original.nonce,
    });
  }
  expect(new Set(replacements.map((row) => row.kind))).toEqual(new Set(['payout', 'sweep']));

  // 4. Every Swept event booked exactly once, hot-wallet bound.
  const logs = await devnet.provider.getLogs({
    address: facts.delegate,
    topics: [SWEPT.topicHash],
    fromBlock: facts.firstBlock,
    toBlock: 'latest',
  });
  const moving = logs
    .map((log) => ({
      reference: `sweep:ETHEREUM:${log.transactionHash.toLowerCase()}:${log.index}`,
      event: SWEEP_DELEGATE_INTERFACE.decodeEventLog(SWEPT, log.data, log.topics),
    }))
    .filter(({ event }) => (event.amount as bigint) > 0n);
  expect(new Set(moving.map(({ event }) => getAddress(event.destination as string)))).toEqual(
    new Set([getAddress(facts.hot)]),
  );
  const booked: Array<{ reference: string }> = await api.dataSource.query(
    `SELECT reference FROM ledger_entries WHERE kind = 'sweep' AND reference LIKE 'sweep:ETHEREUM:%'
        AND created_at >= $1`,
    [facts.runStart],
  );
  expect(booked.map((row) => row.reference).sort()).toEqual(
    moving.map(({ reference }) => reference).sort(),
  );

  // 5. One token transfer from the hot wallet per Completed payout (refunds' included), for its
  // net amount, in its own transaction; none for any other payout.
  const ended: Array<{
    id: string;
    status: string;
    currency: string;
    amount: string;
    net_amount: string;
    to_address: string;
    tx_hash: string | null;
    refund_id: string | null;
  }> = await api.dataSource.query(
    `SELECT id, status, currency, amount::text, net_amount::text, to_address, tx_hash, refund_id
       FROM payouts WHERE merchant_id = $1`,
    [merchant.id],
  );
  for (const currency of CURRENCIES) {
    const transfers = (await transfersFrom(devnet, currency, facts.hot)).map((transfer) => ({
      to: transfer.to,
      amount: transfer.amount,
      txHash: transfer.txHash,
    }));
    const expected = ended
      .filter((payout) => payout.currency === currency && payout.status === 'Completed')
      .map((payout) => ({
        to: getAddress(payout.to_address),
        amount: baseUnits(payout.net_amount, 6),
        txHash: payout.tx_hash!.toLowerCase(),
      }));
    const byHash = (a: { txHash: string }, b: { txHash: string }) =>
      a.txHash.localeCompare(b.txHash);
    expect([...transfers].sort(byHash)).toEqual([...expected].sort(byHash));
  }

  // 6. Every Completed refund sent by exactly one Completed payout; the others by none.
  const refunds: Array<{
    id: string;
    status: string;
    sent: number;
    session_id: string | null;
    amount: string;
    currency: string;
  }> = await api.dataSource.query(
    `SELECT r.id, r.status, r.session_id, r.amount::text, r.currency,
            (SELECT count(*)::int FROM payouts p WHERE p.refund_id = r.id AND p.status = 'Completed') AS sent
       FROM refunds r WHERE r.merchant_id = $1`,
    [merchant.id],
  );
  for (const refund of refunds)
    expect({ id: refund.id, sent: refund.sent }).toEqual({
      id: refund.id,
      sent: refund.status === 'Completed' ? 1 : 0,
    });
  expect(refunds.filter((refund) => refund.status === 'Completed').length).toBeGreaterThan(0);

  // 7. The merchant's balances: what the sessions received less the 1 % fee, less completed
  // payouts and completed session refunds, exactly; nothing held.
  const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
  for (const currency of CURRENCIES) {
    const [{ received }]: Array<{ received: string }> = await api.dataSource.query(
      `SELECT coalesce(sum(amount_received), 0)::text AS received FROM checkout_sessions
        WHERE merchant_id = $1 AND currency = $2`,
      [merchant.id, currency],
    );
    const paidOut = ended
      .filter((p) => p.currency === currency && p.status === 'Completed' && !p.refund_id)
      .reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
    const refunded = refunds
      .filter((r) => r.currency === currency && r.status === 'Completed' && r.session_id)
      .reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
    const expected = new Decimal(received).mul('0.99').minus(paidOut).minus(refunded);
    const row = (balances as Array<{ currency: string; available: string; held: string }>).find(
      (balance) => balance.currency === currency,
    );
    expect({ currency, available: row?.available, held: row?.held }).toEqual({
      currency,
      available: expected.toFixed(),
      held: '0',
    });
  }

  // 8. What each kill left in flight ended: Completed (its transfer or Swept events checked
  // above) or Failed on a mined, reverted transaction of its own.
  const struck = [...new Map(facts.strikes.flat().map((item) => [item.id, item])).values()];
  const outcomes: Array<{ id: string; status: string; tx_hash: string | null; network: string }> =
    await api.dataSource.query(
      `SELECT id, status, tx_hash, network FROM payouts WHERE id = ANY($1::text[])
       UNION ALL SELECT id, status, tx_hash, network FROM sweeps WHERE id = ANY($1::text[])`,
      [struck.map((item) => item.id)],
    );
  expect(outcomes).toHaveLength(struck.length);
  for (const outcome of outcomes) {
    const proof =
      outcome.status === 'Failed' && outcome.network === 'ETHEREUM'
        ? receipts.get(outcome.tx_hash!.toLowerCase())?.status
        : undefined;
    expect({ id: outcome.id, status: outcome.status, proof }).toEqual({
      id: outcome.id,
      status: outcome.status === 'Failed' ? 'Failed' : 'Completed',
      proof: outcome.status === 'Failed' && outcome.network === 'ETHEREUM' ? 0 : undefined,
    });
  }

  return {
    transactions: receipts.size,
    reverted: [...receipts.values()].filter((receipt) => receipt.status === 0).length,
    failedPayouts: failedPayouts.length,
    failedSweeps: failedSweeps.length,
    replaced: replacements.length,
    swept: moving.length,
  };
}
