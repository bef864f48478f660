// npm run bench:payout-batches [-- options]: batches of 1,000 payouts through the built API, with
// the worker sending them on an anvil devnet meanwhile, each batch timed from request to answer,
// then checked in the database. See bench/payout-batches/README.md.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { getAddress, hexlify } from 'ethers';
import type { Client } from 'pg';
import { startDevnet } from '../../test/support/devnet';
import { clientVersion, Rpc } from '../kit/chain';
import { devnetEnvironment, writeDevnetFiles } from '../kit/devnet-files';
import { timestamp } from '../kit/clock';
import { createMerchant, freshTarget, postgresVersion } from '../kit/database';
import { fundMerchant } from '../kit/funding';
import { parseOptions } from '../kit/options';
import { build, runCli } from '../kit/processes';
import { describeMachine, gitDescription, machineLine, writeJson } from '../kit/report';
import { runBenchmark } from '../kit/run';
import {
  Api,
  hotWalletRegisteredSince,
  startApi,
  startWorker,
  waitForPoolFill,
} from '../kit/services';
import { environment, target } from '../kit/settings';
import { percentile } from '../kit/stats';

const GOAL_MS = 2000;
const TARGET = target('payments_bench_payout_batches', 11);
// The default configuration, rate limits included.
const env = (extra: Record<string, string> = {}) => environment(TARGET, extra);
const USAGE = 'Usage: npm run bench:payout-batches [-- --no-build --batches N --items N]';

/** Amounts 4.00 to 49.99 (above ETHEREUM's fee of 3), fresh recipients, realistic references. */
function batchItems(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    amount: new Decimal(randomInt(400, 5000)).dividedBy(100).toFixed(2),
    currency: 'USDT',
    network: 'ETHEREUM',
    to_address: getAddress(hexlify(randomBytes(20))),
    description: `Seller payout #${100000 + index}`,
    metadata: JSON.stringify({ seller_id: `s_${randomInt(1e9)}`, order: randomUUID() }),
  }));
}

const sum = (items: Array<{ amount: string }>) =>
  items.reduce((total, item) => total.plus(item.amount), new Decimal(0));

/** One POST /v1/payout-batches, timed from the first byte sent to the answer's last byte read. */
async function postBatch(api: Api, apiKey: string, items: ReturnType<typeof batchItems>) {
  const body = JSON.stringify({ items });
  const startedAt = timestamp();
  const response = await fetch(`${api.url}/v1/payout-batches`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body,
  });
  const answer = (await response.json()) as { id?: string; error?: { message: string } };
  return {
    batchId: answer.id ?? null,
    status: response.status,
    items: items.length,
    bodyBytes: Buffer.byteLength(body),
    ms: Math.round(timestamp() - startedAt),
    amount: sum(items).toFixed(),
    error: answer.error?.message ?? null,
  };
}

/** Each batch as the database holds it: its payouts and their holds (one each), to the unit. */
async function verify(db: Client, runs: Array<Awaited<ReturnType<typeof postBatch>>>) {
  const failures: string[] = [];
  for (const run of runs) {
    if (run.status !== 201 || !run.batchId) {
      failures.push(`batch answered ${run.status}: ${run.error}`);
      continue;
    }
    const { rows } = await db.query<{
      payouts: number;
      holds: number;
      amount: string | null;
      held: string | null;
    }>(
      `SELECT (SELECT count(*)::int FROM payouts WHERE batch_id = $1) AS payouts,
              (SELECT trim_scale(sum(amount))::text FROM payouts WHERE batch_id = $1) AS amount,
              h.holds, h.held
         FROM (SELECT count(*)::int AS holds, trim_scale(sum(l.amount))::text AS held
                 FROM payouts p
                 JOIN ledger_entries e ON e.reference = 'payout:' || p.id || ':hold'
                 JOIN ledger_lines l ON l.entry_id = e.id AND l.amount > 0
                WHERE p.batch_id = $1) h`,
      [run.batchId],
    );
    const [row] = rows;
    if (row.amount !== run.amount || row.held !== run.amount) {
      failures.push(`${run.batchId}: payouts ${row.amount}, holds ${row.held}, sent ${run.amount}`);
    }
    if (row.payouts !== run.items || row.holds !== run.items) {
      failures.push(`${run.batchId}: ${row.payouts} payouts, ${row.holds} holds`);
    }
  }
  return failures;
}

runBenchmark('payout-batches', async ({ step, base, log, onStop, startedAt }) => {
  const options = parseOptions(USAGE, {
    batches: { type: 'string', default: '5' },
    items: { type: 'string', default: '1000' },
  });
  const [batches, items] = [options.whole('batches'), options.whole('items')];
  build(options.build, step);
  const db = await freshTarget(TARGET, step, env());
  onStop(() => db.end());
  runCli(['pool:fill', '--count', '2000'], env());
  const devnet = await startDevnet({ blockTime: 1, logFile: log('anvil') });
  onStop(() => devnet.stop());
  const files = writeDevnetFiles(devnet, base);
  const machine = describeMachine(
    await postgresVersion(db),
    await clientVersion(new Rpc(devnet.rpcUrl)),
  );
  console.log(machineLine(machine));

  const api = await startApi({ env: env(devnetEnvironment(files, false)), logFile: log('api') });
  // Up once it has registered the hot wallet (its payout queue is being set up).
  const workerStartedAt = Date.now();
  const worker = await startWorker({
    env: env(devnetEnvironment(files, true)),
    logFile: log('worker'),
    ready: () => hotWalletRegisteredSince(db, workerStartedAt),
  });
  const filledInMs = await waitForPoolFill(db, worker);
  step(
    `API and worker up; the worker filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`,
  );

  const loads = Array.from({ length: batches }, () => batchItems(items));
  const needed = sum(loads.flat());
  const merchant = createMerchant(env(), 'Bench payout batches');
  await fundMerchant('ledger', { db, api, devnet }, merchant, needed);
  step(`merchant funded with ${needed.toFixed()} USDT (one ledger credit)`);

  const runs = [];
  for (const [index, load] of loads.entries()) {
    const run = await postBatch(api, merchant.apiKey, load);
    runs.push(run);
    step(
      `batch ${index + 1}/${batches}: ${run.status} in ${run.ms} ms ` +
        `(${items} items, ${(run.bodyBytes / 1024).toFixed(0)} kB)` +
        (run.error ? ` ${run.error}` : ''),
    );
  }
  const failures = await verify(db, runs);
  const times = runs.map((run) => run.ms);
  const [median, max] = [percentile(times, 50), Math.max(...times)];
  console.log(
    `\n${items}-item batch accepted: median ${median} ms, max ${max} ms ` +
      `(goal < ${GOAL_MS} ms: ${max < GOAL_MS ? 'met' : 'NOT met'})`,
  );
  failures.forEach((failure) => console.log(`FAIL ${failure}`));
  writeJson(`${base}.json`, {
    startedAt: new Date(startedAt).toISOString(),
    git: gitDescription(),
    machine,
    items,
    runs: runs.map(({ batchId, status, bodyBytes, ms }) => ({ batchId, status, bodyBytes, ms })),
    medianMs: median,
    maxMs: max,
    goalMs: GOAL_MS,
    failures,
  });
  process.exitCode = failures.length ? 1 : 0;
});
