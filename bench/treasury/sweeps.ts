import { randomInt, randomUUID } from 'node:crypto';
import { parseUnits } from 'ethers';
import type { Client } from 'pg';
import { DEVNET_ACCOUNTS, DEVNET_TOKEN_DECIMALS } from '../../test/support/devnet';
import { type Rpc } from '../kit/chain';
import { tokenBalance } from '../kit/chain-reads';
import type { HeadTracker } from '../kit/heads';
import { pollUntil } from '../kit/poll';
import { type Api, callApi } from '../kit/services';
import { payAndSettle, type PayContext } from './pay';

/*
 * Phase 1: deposit addresses swept by the worker. Sessions created through the API, paid on the
 * devnet in a few packed blocks, detected and confirmed by the worker, then swept by it on its
 * own schedule: EIP-7702 batches from the sweeper into the hot wallet. Measured from the
 * database (when each sweep was signed and completed), the chain (receipts, authorizations, when
 * each block was announced) and checked afterwards on chain and in the books.
 */

export type SweepResult = Awaited<ReturnType<typeof measureSweeps>>;

export interface SweepContext extends PayContext {
  api: Api;
  apiKey: string;
  merchantId: string;
  head: HeadTracker;
  step: (message: string) => void;
}

interface PaidSession {
  id: string;
  payAddress: string;
  /** Whole tokens, as the session asks and the payment sends. */
  amount: string;
}

const CREATE_CONCURRENCY = 16;
const POLL_MS = 250;
// Two sweep passes at the default 60 s interval (one signs, the next books), and then some.
const SWEPT_TIMEOUT_MS = 240_000;
const PAID_TIMEOUT_MS = 120_000;

export async function measureSweeps(context: SweepContext, count: number) {
  const { db, rpc, devnet, step } = context;
  step(`creating ${count} sessions through the API`);
  const sessions = await createSessions(context, count);
  const token = devnet.tokens.USDT.contract;
  const hotBefore = await tokenBalance(rpc, token, DEVNET_ACCOUNTS.hotWallet.address);

  step(`paying them on the devnet (signed here, sent in JSON-RPC batches)`);
  const { paidAt, ms: paymentMs } = await payAndSettle(context, context.merchantId, sessions, {
    timeoutMs: PAID_TIMEOUT_MS,
    pollMs: POLL_MS,
  });
  step(
    `all ${count} Paid ${(paymentMs.toAllPaid / 1000).toFixed(1)} s after they were sent; ` +
      `waiting for the worker's sweeps`,
  );

  const addresses = sessions.map((session) => session.payAddress.toLowerCase());
  const allSwept = async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(DISTINCT lower(i.address))::int AS n FROM sweep_items i
         JOIN sweeps s ON s.id = i.sweep_id
        WHERE s.status = 'Completed' AND i.status = 'Swept' AND lower(i.address) = ANY($1)`,
      [addresses],
    );
    return rows[0].n === count;
  };
  const swept = { timeoutMs: SWEPT_TIMEOUT_MS, pollMs: POLL_MS, child: context.worker };
  if (!(await pollUntil(allSwept, swept))) {
    throw new Error(
      `Timed out after ${SWEPT_TIMEOUT_MS / 1000} s waiting for every address swept.`,
    );
  }
  const sweeps = await sweepRows(db, addresses);
  const transactions = await sweepTransactions(rpc, sweeps);
  const verification = await verifySweeps(context, sessions, sweeps, transactions, hotBefore);

  const first = Math.min(...sweeps.map((sweep) => sweep.createdAt));
  const lastSigned = Math.max(...sweeps.map((sweep) => sweep.createdAt));
  const lastCompleted = Math.max(...sweeps.map((sweep) => sweep.completedAt));
  const lastBlock = Math.max(...transactions.map((transaction) => transaction.block));
  const lastMinedAt = context.head.seenAt(lastBlock);
  const gas = transactions.reduce((sum, transaction) => sum + transaction.gasUsed, 0);
  const perBatch = transactions.map((transaction) => transaction.gasUsed / transaction.addresses);
  return {
    addresses: count,
    /** Signing and sending the payments, then sent -> every session Paid. */
    paymentMs,
    sweeps: sweeps.length,
    /** Transactions sent for them (a replacement is one more). */
    attempts: sweeps.reduce((sum, sweep) => sum + sweep.attempts, 0),
    blocks: new Set(transactions.map((transaction) => transaction.block)).size,
    /** The headline: first sweep signed -> last sweep Completed, from the sweeps table. */
    wallMs: Math.round(lastCompleted - first),
    /** Where that time went: signing the pass, the chain mining it, the wait to book it. */
    stagesMs: {
      signing: Math.round(lastSigned - first),
      signedToLastMined: lastMinedAt === null ? null : Math.round(lastMinedAt - first),
      lastMinedToCompleted: lastMinedAt === null ? null : Math.round(lastCompleted - lastMinedAt),
    },
    /** Every session Paid -> first sweep signed: the wait for the next sweep pass. */
    paidToFirstSignedMs: Math.round(first - paidAt),
    gasPerAddress: Math.round(gas / count),
    gasPerAddressByBatch: {
      min: Math.round(Math.min(...perBatch)),
      max: Math.round(Math.max(...perBatch)),
    },
    transactions,
    verification,
  };
}

/** Sessions of 100.00 to 500.00 USDT: enough for the default policy (50 minimum, 1 % cost). */
async function createSessions(context: SweepContext, count: number): Promise<PaidSession[]> {
  const sessions: PaidSession[] = [];
  let next = 0;
  const createNext = async () => {
    while (next < count) {
      next += 1;
      const price = `${randomInt(100, 500)}.${String(randomInt(0, 100)).padStart(2, '0')}`;
      const body = { pricing_amount: price, pricing_currency: 'USD' };
      const session = await callApi<{ id: string; pay_address: string; amount: string }>(
        context.api,
        context.apiKey,
        'POST',
        '/v1/checkout/sessions',
        { ...body, currency: 'USDT', network: 'ETHEREUM' },
        { 'idempotency-key': randomUUID() },
      );
      sessions.push({ id: session.id, payAddress: session.pay_address, amount: session.amount });
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, createNext));
  return sessions;
}

type SweepRow = Awaited<ReturnType<typeof sweepRows>>[number];

async function sweepRows(db: Client, addresses: string[]) {
  const { rows } = await db.query<{
    id: string;
    txHash: string;
    createdAt: number;
    completedAt: number;
    attempts: number;
    items: number;
  }>(
    `SELECT s.id, s.tx_hash AS "txHash",
            (extract(epoch FROM s.created_at) * 1000)::float8 AS "createdAt",
            (extract(epoch FROM s.completed_at) * 1000)::float8 AS "completedAt",
            (SELECT count(*)::int FROM sweep_attempts a WHERE a.sweep_id = s.id) AS attempts,
            (SELECT count(*)::int FROM sweep_items i WHERE i.sweep_id = s.id) AS items
       FROM sweeps s
      WHERE EXISTS (SELECT 1 FROM sweep_items i
                     WHERE i.sweep_id = s.id AND lower(i.address) = ANY($1))
      ORDER BY s.created_at`,
    [addresses],
  );
  return rows;
}

type SweepTransaction = Awaited<ReturnType<typeof sweepTransactions>>[number];

async function sweepTransactions(rpc: Rpc, sweeps: SweepRow[]) {
  const transactions = [];
  for (const sweep of sweeps) {
    const receipt = await rpc.call<{
      blockNumber: string;
      gasUsed: string;
      effectiveGasPrice: string;
    }>('eth_getTransactionReceipt', [sweep.txHash]);
    const transaction = await rpc.call<{ type: string; authorizationList?: unknown[] }>(
      'eth_getTransactionByHash',
      [sweep.txHash],
    );
    const gasUsed = BigInt(receipt.gasUsed);
    transactions.push({
      sweepId: sweep.id,
      txHash: sweep.txHash,
      block: Number(receipt.blockNumber),
      addresses: sweep.items,
      authorizations: transaction.authorizationList?.length ?? 0,
      type: Number(transaction.type),
      gasUsed: Number(gasUsed),
      feeWei: (gasUsed * BigInt(receipt.effectiveGasPrice)).toString(),
    });
  }
  return transactions;
}

async function verifySweeps(
  context: SweepContext,
  sessions: PaidSession[],
  sweeps: SweepRow[],
  transactions: SweepTransaction[],
  hotBefore: bigint,
) {
  const { db, rpc, devnet } = context;
  const failures: string[] = [];
  const token = devnet.tokens.USDT.contract;
  const balances = await tokenBalances(
    rpc,
    token,
    sessions.map((session) => session.payAddress),
  );
  const emptyAddresses = balances.filter((balance) => balance === 0n).length;
  if (emptyAddresses !== sessions.length) {
    failures.push(`${sessions.length - emptyAddresses} deposit addresses still hold USDT`);
  }
  const paid = sessions.reduce(
    (sum, session) => sum + parseUnits(session.amount, DEVNET_TOKEN_DECIMALS),
    0n,
  );
  const increase = (await tokenBalance(rpc, token, DEVNET_ACCOUNTS.hotWallet.address)) - hotBefore;
  if (increase !== paid) {
    failures.push(`the hot wallet got ${increase} base units, the sessions were paid ${paid}`);
  }
  const { rows: swept } = await db.query<{ total: string }>(
    `SELECT coalesce(sum(l.amount), 0)::text AS total FROM ledger_lines l
       JOIN ledger_entries e ON e.id = l.entry_id
      WHERE e.reference LIKE 'sweep:ETHEREUM:%' AND l.account = 'hot_wallet:ETHEREUM:USDT'`,
  );
  const sweptInBooks = parseUnits(swept[0].total.replace(/(\.\d{6})\d*$/, '$1'), 6);
  if (sweptInBooks !== paid) {
    failures.push(`the books moved ${sweptInBooks} base units into the hot wallet, not ${paid}`);
  }
  const { rows: items } = await db.query<{ address: string; n: number }>(
    `SELECT lower(address) AS address, count(*)::int AS n FROM sweep_items
      WHERE status = 'Swept' AND sweep_id = ANY($1) GROUP BY lower(address) HAVING count(*) > 1`,
    [sweeps.map((sweep) => sweep.id)],
  );
  if (items.length) failures.push(`${items.length} addresses swept more than once`);
  let feesBookedExactly = 0;
  for (const transaction of transactions) {
    const { rows } = await db.query<{ amount: string }>(
      `SELECT l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 AND l.account = 'network_fees:ETHEREUM:ETH'`,
      [`network_fee:ETHEREUM:${transaction.txHash}`],
    );
    // numeric(38, 18): an ETH amount's 18 decimals are its wei, digit for digit.
    const [fee] = rows.map((row) => BigInt(row.amount.replace('.', '')));
    if (rows.length === 1 && fee === BigInt(transaction.feeWei)) feesBookedExactly += 1;
    else failures.push(`the gas of ${transaction.txHash} is not booked to the wei of its receipt`);
  }
  return {
    emptyAddresses,
    hotWalletIncrease: increase.toString(),
    paid: paid.toString(),
    sweptInBooks: sweptInBooks.toString(),
    feesBookedExactly,
    failures,
  };
}

const BALANCE_OF = '0x70a08231';

/** balanceOf each address at the latest block, in JSON-RPC batches of 500. */
async function tokenBalances(rpc: Rpc, token: string, holders: string[]): Promise<bigint[]> {
  const balances: bigint[] = [];
  for (let start = 0; start < holders.length; start += 500) {
    const answers = await rpc.batch(
      holders.slice(start, start + 500).map((holder) => ({
        method: 'eth_call',
        params: [
          { to: token, data: `${BALANCE_OF}${holder.slice(2).toLowerCase().padStart(64, '0')}` },
          'latest',
        ],
      })),
    );
    for (const answer of answers) {
      if (answer.error !== undefined) throw new Error(answer.error);
      balances.push(BigInt(answer.result as string));
    }
  }
  return balances;
}
