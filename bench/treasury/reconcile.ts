import { parseUnits } from 'ethers';
import type { Client } from 'pg';
import { DEVNET_ACCOUNTS } from '../../test/support/devnet';
import { mintTo } from '../kit/chain';
import { timestamp } from '../kit/clock';
import { insertSessions, randomSessions } from '../deposits/database';
import { cli } from './cli';
import { payAndSettle, type PayContext } from './pay';
import { profileReconcile } from './profile';

/*
 * Phase 2: treasury:reconcile over many deposit addresses with activity. Making 9,000 more of
 * them through the API would take long and measure the API: their Pending sessions are inserted
 * in SQL (as bench:deposits does, random addresses outside the pay-address pool, so never swept),
 * paid on the devnet, and detected, confirmed and booked by the worker like any payment. Then the
 * operator command runs as an operator runs it, a new process each time, timed from spawn to exit.
 */

export interface ReconcileRow {
  network: string;
  currency: string;
  onchain: string;
  books: string;
  difference: string;
  addresses: number;
  block: number;
}

export type ReconcileResult = Awaited<ReturnType<typeof measureReconcile>>;

export interface ReconcileContext extends PayContext {
  /** The operator's CLI environment: the worker's, without the worker's own settings. */
  cliEnv: NodeJS.ProcessEnv;
  step: (message: string) => void;
  /** Where this run's files go (the profile's among them). */
  base: string;
}

const PAID_TIMEOUT_MS = 300_000;
const POLL_MS = 500;
// More than any run of sessions pays (500 USDT at most each), minted to the devnet's payer.
const PAYER_TOP_UP = parseUnits('5000000', 6);

export async function measureReconcile(
  context: ReconcileContext,
  merchantId: string,
  newAddresses: number,
  runs: number,
) {
  const { db, rpc, devnet, step } = context;
  const token = devnet.tokens.USDT.contract;
  await mintTo(rpc, token, [DEVNET_ACCOUNTS.payer.address], PAYER_TOP_UP);
  const sessions = randomSessions(newAddresses, 'tr');
  await insertSessions(db, { merchantId, tokenContract: token, sessions });
  step(`${newAddresses} Pending sessions inserted in SQL; paying them on the devnet`);
  const { ms: paymentMs } = await payAndSettle(context, merchantId, sessions, {
    timeoutMs: PAID_TIMEOUT_MS,
    pollMs: POLL_MS,
  });
  step(
    `all ${newAddresses} Paid ${(paymentMs.toAllPaid / 1000).toFixed(1)} s after they were sent`,
  );

  const results = [];
  for (let run = 0; run < runs; run += 1) {
    const result = await cli(['treasury:reconcile', '--network', 'ETHEREUM'], context.cliEnv);
    const rows = parseRows(result.stdout);
    const serviceMs = Math.round(timestamp() - (await lastRunStartedAt(db)));
    results.push({
      /** The command, spawn to exit. */
      ms: result.ms,
      /** The reconciliation run: its stored start (after the CLI booted) to the command's exit. */
      serviceMs,
      /** The command's CPU time (boot included), user + system; null without GNU time. */
      cpuMs: result.cpuMs,
      exitCode: result.status,
      rows,
    });
    step(
      `treasury:reconcile ${run + 1}/${runs}: ${result.ms} ms (the run itself ${serviceMs} ms, ` +
        `CPU ${result.cpuMs ?? '?'} ms), exit ${result.status}`,
    );
  }
  const profile = await profileReconcile(devnet, context.cliEnv, context.base);
  step(
    `profiled run: ${profile.ms} ms, ${profile.multicalls.batches} Multicall3 batches, ` +
      `${profile.maxInFlight} in flight at most, CPU profile ${profile.cpuProfile}`,
  );
  const failures: string[] = [];
  if (profile.exitCode !== 0) failures.push(`the profiled run exited ${profile.exitCode}`);
  for (const [index, run] of results.entries()) {
    if (run.exitCode !== 0)
      failures.push(`treasury:reconcile run ${index + 1} exited ${run.exitCode}`);
    for (const row of run.rows.filter((row) => row.difference !== '0')) {
      failures.push(`run ${index + 1}: ${row.currency} differs by ${row.difference}`);
    }
  }
  const tokenRow = results[0]?.rows.find((row) => row.currency === 'USDT');
  const baseline = await cli(['merchants:list'], context.cliEnv);
  return {
    /** Deposit addresses with activity on ETHEREUM when reconciled (the swept ones included). */
    depositAddresses: await depositAddressCount(db),
    inserted: {
      sessions: newAddresses,
      note:
        'Pending checkout_sessions rows inserted in SQL (random addresses, not in the pay-address ' +
        'pool); their payments were sent on chain and detected, confirmed and booked by the worker',
    },
    paymentMs,
    runs: results,
    /** The same CLI process doing one query (merchants:list): its start and stop alone. */
    cliBaselineMs: baseline.ms,
    cliBaselineCpuMs: baseline.cpuMs,
    /** One more run, profiled (not in the figures). */
    profile,
    failures: tokenRow ? failures : [...failures, 'treasury:reconcile printed no USDT row'],
  };
}

async function lastRunStartedAt(db: Client): Promise<number> {
  const { rows } = await db.query<{ at: number }>(
    `SELECT (extract(epoch FROM max(started_at)) * 1000)::float8 AS at FROM reconciliation_runs
      WHERE network = 'ETHEREUM'`,
  );
  return rows[0].at;
}

async function depositAddressCount(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(DISTINCT lower(c.pay_address))::int AS n
       FROM session_transactions t JOIN checkout_sessions c ON c.id = t.session_id
      WHERE t.network = 'ETHEREUM'`,
  );
  return rows[0].n;
}

function parseRows(stdout: string): ReconcileRow[] {
  try {
    return JSON.parse(stdout.trim().split('\n').pop() ?? '[]') as ReconcileRow[];
  } catch {
    return [];
  }
}
