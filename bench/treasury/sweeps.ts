import { randomInt, randomUUID } from 'node:crypto';
import { parseUnits } from 'ethers';
import type { Client } from 'pg';
import { DEVNET_ACCOUNTS, DEVNET_TOKEN_DECIMALS, type Devnet } from '../../test/support/devnet';
import type { Rpc } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import type { TrackedProcess } from '../kit/processes';
import { tokenBalance } from '../kit/chain';
import type { HeadTracker } from '../kit/heads';
import { assertRunning } from '../kit/processes';
import { payAll } from './pay';
import type { Api } from '../kit/services';

/*
 * Phase 1: deposit addresses swept by the worker. Sessions created through the API, paid on the
 * devnet in a few packed blocks, detected and confirmed by the worker, then swept by it on its
 * own schedule: EIP-7702 batches from the sweeper into the hot wallet. Measured from the
 * database (when each sweep was signed and completed), the chain (receipts, authorizations, when
 * each block was announced) and checked afterwards on chain and in the books.
 */

export interface PaidSession {
  id: string;
  payAddress: string;
  /** Whole tokens, as the session asks and the payment sends. */
  amount: string;
}

export interface SweepTransaction {
  sweepId: string;
  txHash: string;
  block: number;
  addresses: number;
  authorizations: number;
  type: number;
  gasUsed: number;
  feeWei: string;
}

export interface SweepResult {
  addresses: number;
  /** Signing and sending the payments, then sent -> every session Paid. */
  paymentMs: { send: number; toAllPaid: number };
  sweeps: number;
  /** Transactions sent for them (a replacement is one more). */
  attempts: number;
  blocks: number;
  /** The headline: first sweep signed -> last sweep Completed, from the sweeps table. */
  wallMs: number;
  /** Where that time went: signing the pass, the chain mining it, the wait to book it. */
  stagesMs: {
    signing: number;
    signedToLastMined: number | null;
    lastMinedToCompleted: number | null;
  };
  /** Every session Paid -> first sweep signed: the wait for the next sweep pass. */
  paidToFirstSignedMs: number;
  gasPerAddress: number;
  gasPerAddressByBatch: { min: number; max: number };
  transactions: SweepTransaction[];
  verification: SweepVerification;
}

export interface SweepVerification {
  emptyAddresses: number;
  hotWalletIncrease: string;
  paid: string;
  sweptInBooks: string;
  feesBookedExactly: number;
  failures: string[];
}

export interface SweepContext {
  db: Client;
  rpc: Rpc;
  devnet: Devnet;
  api: Api;
  apiKey: string;
  merchantId: string;
  worker: TrackedProcess;
  head: HeadTracker;
  step: (message: string) => void;
}

const CREATE_CONCURRENCY = 16;
const POLL_MS = 250;
// Two sweep passes at the default 60 s interval (one signs, the next books), and then some.
const SWEPT_TIMEOUT_MS = 240_000;
const PAID_TIMEOUT_MS = 120_000;

export async function measureSweeps(context: SweepContext, count: number): Promise<SweepResult> {
  const { db, rpc, devnet, step } = context;
  step(`creating ${count} sessions through the API`);
  const sessions = await createSessions(context, count);
  const token = devnet.tokens.USDT.contract;
  const hotWallet = DEVNET_ACCOUNTS.hotWallet.address;
  const hotBefore = await tokenBalance(rpc, token, hotWallet);

  step(`paying them on the devnet (signed here, sent in JSON-RPC batches)`);
  const sendStartedAt = timestamp();
  await payAll(
    devnet,
    rpc,
    sessions.map((session) => ({ to: session.payAddress, amount: session.amount })),
  );
  const sentAt = timestamp();
  await waitUntil(context, PAID_TIMEOUT_MS, 'every session Paid', async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM checkout_sessions WHERE merchant_id = $1 AND status = 'Paid'`,
      [context.merchantId],
    );
    return rows[0].n === count;
  });
  const paidAt = timestamp();
  step(
    `all ${count} Paid ${((paidAt - sentAt) / 1000).toFixed(1)} s after they were sent; waiting for the worker's sweeps`,
  );

  const addresses = sessions.map((session) => session.payAddress.toLowerCase());
  await waitUntil(context, SWEPT_TIMEOUT_MS, 'every address swept', async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(DISTINCT lower(i.address))::int AS n FROM sweep_items i
         JOIN sweeps s ON s.id = i.sweep_id
        WHERE s.status = 'Completed' AND i.status = 'Swept' AND lower(i.address) = ANY($1)`,
      [addresses],
    );
    return rows[0].n === count;
  });
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
    paymentMs: { send: Math.round(sentAt - sendStartedAt), toAllPaid: Math.round(paidAt - sentAt) },
    sweeps: sweeps.length,
    attempts: sweeps.reduce((sum, sweep) => sum + sweep.attempts, 0),
    blocks: new Set(transactions.map((transaction) => transaction.block)).size,
    wallMs: Math.round(lastCompleted - first),
    stagesMs: {
      signing: Math.round(lastSigned - first),
      signedToLastMined: lastMinedAt === null ? null : Math.round(lastMinedAt - first),
      lastMinedToCompleted: lastMinedAt === null ? null : Math.round(lastCompleted - lastMinedAt),
    },
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
      const response = await fetch(`${context.api.url}/v1/checkout/sessions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${context.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({
          pricing_amount: price,
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        }),
      });
      const body = (await response.json()) as { id: string; pay_address: string; amount: string };
      if (response.status !== 201) {
        throw new Error(`POST /v1/checkout/sessions: ${response.status} ${JSON.stringify(body)}`);
      }
      sessions.push({ id: body.id, payAddress: body.pay_address, amount: body.amount });
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, createNext));
  return sessions;
}

interface SweepRow {
  id: string;
  txHash: string;
  createdAt: number;
  completedAt: number;
  attempts: number;
  items: number;
}

async function sweepRows(db: Client, addresses: string[]): Promise<SweepRow[]> {
  const { rows } = await db.query<{
    id: string;
    tx_hash: string;
    created_at: number;
    completed_at: number;
    attempts: number;
    items: number;
  }>(
    `SELECT s.id, s.tx_hash,
            (extract(epoch FROM s.created_at) * 1000)::float8 AS created_at,
            (extract(epoch FROM s.completed_at) * 1000)::float8 AS completed_at,
            (SELECT count(*)::int FROM sweep_attempts a WHERE a.sweep_id = s.id) AS attempts,
            (SELECT count(*)::int FROM sweep_items i WHERE i.sweep_id = s.id) AS items
       FROM sweeps s
      WHERE EXISTS (SELECT 1 FROM sweep_items i
                     WHERE i.sweep_id = s.id AND lower(i.address) = ANY($1))
      ORDER BY s.created_at`,
    [addresses],
  );
  return rows.map((row) => ({
    id: row.id,
    txHash: row.tx_hash,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    attempts: row.attempts,
    items: row.items,
  }));
}

interface RawReceipt {
  blockNumber: string;
  gasUsed: string;
  effectiveGasPrice: string;
  status: string;
}

async function sweepTransactions(rpc: Rpc, sweeps: SweepRow[]): Promise<SweepTransaction[]> {
  const transactions: SweepTransaction[] = [];
  for (const sweep of sweeps) {
    const receipt = await rpc.call<RawReceipt>('eth_getTransactionReceipt', [sweep.txHash]);
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
): Promise<SweepVerification> {
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
    if (
      rows.length === 1 &&
      BigInt(rows[0].amount.replace('.', '')) === BigInt(transaction.feeWei)
    ) {
      feesBookedExactly += 1;
    } else {
      failures.push(`the gas of ${transaction.txHash} is not booked to the wei of its receipt`);
    }
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

async function waitUntil(
  context: SweepContext,
  timeoutMs: number,
  what: string,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = timestamp() + timeoutMs;
  while (!(await check())) {
    assertRunning(context.worker);
    if (timestamp() > deadline) {
      throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}.`);
    }
    await sleep(POLL_MS);
  }
}
