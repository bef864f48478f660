// npm run bench:payout-batches [-- options]: batches of 1,000 payouts through the built API, with
// the worker sending them on an anvil devnet meanwhile, each batch timed from request to answer,
// then checked in the database. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import Decimal from 'decimal.js';
import type { Client } from 'pg';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../../test/support/devnet';
import { clientVersion, Rpc } from '../deposits/chain';
import { connectDatabase, flushRedis, postgresVersion, resetDatabase } from '../deposits/database';
import { build, installCleanup, runCli, stopAllProcesses } from '../deposits/processes';
import { describeMachine, gitDescription, machineLine } from '../deposits/report';
import { fundMerchant } from '../payouts/funding';
import { waitForPoolFill } from '../payouts/services';
import { batchItems, BatchRun, postBatch } from './load';
import { startApi, startWorker } from './services';
import {
  API_MAIN,
  benchEnvironment,
  CLI_MAIN,
  DATABASE_URL,
  DevnetFiles,
  REDIS_URL,
  RESULTS_DIR,
  WORKER_MAIN,
} from './settings';

const GOAL_MS = 2000;
const startedAt = Date.now();

function step(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

function options() {
  const { values } = parseArgs({
    options: {
      'no-build': { type: 'boolean', default: false },
      batches: { type: 'string', default: '5' },
      items: { type: 'string', default: '1000' },
    },
  });
  const batches = Number(values.batches);
  const items = Number(values.items);
  if (!Number.isInteger(batches) || batches < 1 || !Number.isInteger(items) || items < 1) {
    console.error('Usage: npm run bench:payout-batches [-- --no-build --batches N --items N]');
    process.exit(2);
  }
  return { build: !values['no-build'], batches, items };
}

function writeDevnetFiles(devnet: Devnet, files: DevnetFiles): void {
  writeFileSync(files.networksFile, devnet.networksFileJson({ confirmations: 1 }));
  // anvil's well-known account #2: a public test key, never a real secret.
  const hotWallets = { ETHEREUM: { privateKey: DEVNET_ACCOUNTS.hotWallet.privateKey } };
  writeFileSync(files.hotWalletsFile, JSON.stringify(hotWallets));
}

/** Each batch as the database holds it: its payouts and their holds (one each), to the unit. */
async function verify(db: Client, runs: BatchRun[]): Promise<string[]> {
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
    const expected = new Decimal(run.amount).toFixed();
    if (row.amount !== expected || row.held !== expected) {
      failures.push(`${run.batchId}: payouts ${row.amount}, holds ${row.held}, sent ${expected}`);
    }
    if (row.payouts !== run.items || row.holds !== run.items) {
      failures.push(`${run.batchId}: ${row.payouts} payouts, ${row.holds} holds`);
    }
  }
  return failures;
}

async function main(): Promise<void> {
  const { build: shouldBuild, batches, items } = options();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `payout-batches-${stamp}`);
  const files: DevnetFiles = {
    networksFile: `${base}.networks.json`,
    hotWalletsFile: `${base}.hot-wallets.json`,
  };
  let devnet: Devnet | null = null;
  let db: Client | null = null;
  installCleanup(async () => {
    await stopAllProcesses();
    await devnet?.stop();
  });
  try {
    build(shouldBuild, step, [API_MAIN, WORKER_MAIN, CLI_MAIN]);
    step(`database ${DATABASE_URL}: drop, create, migrate; Redis ${REDIS_URL}: flush`);
    await resetDatabase(DATABASE_URL, benchEnvironment());
    await flushRedis(REDIS_URL);
    runCli(['pool:fill', '--count', '2000'], benchEnvironment());
    db = await connectDatabase(DATABASE_URL);
    devnet = await startDevnet({ blockTime: 1, logFile: `${base}.anvil.log` });
    writeDevnetFiles(devnet, files);
    const machine = describeMachine(
      await postgresVersion(db),
      await clientVersion(new Rpc(devnet.rpcUrl)),
    );
    console.log(machineLine(machine));

    const api = await startApi(files, `${base}.api.log`);
    const worker = await startWorker(db, files, `${base}.worker.log`);
    const filledInMs = await waitForPoolFill(db, worker);
    step(
      `API and worker up; the worker filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`,
    );

    const loads = Array.from({ length: batches }, () => batchItems(items));
    const needed = loads.flat().reduce((sum, item) => sum.plus(item.amount), new Decimal(0));
    const created = runCli<{ merchant_id: string; api_key: string }>(
      ['merchants:create', '--name', 'Bench payout batches'],
      benchEnvironment(),
    );
    const merchant = { id: created.merchant_id, apiKey: created.api_key };
    await fundMerchant('ledger', { db, api, devnet }, merchant, needed);
    step(`merchant funded with ${needed.toFixed()} USDT (one ledger credit)`);

    const runs: BatchRun[] = [];
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
    const times = runs.map((run) => run.ms).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const max = times[times.length - 1];
    const report = {
      startedAt: new Date(startedAt).toISOString(),
      git: gitDescription(),
      machine,
      items,
      runs: runs.map(({ batchId, status, bodyBytes, ms }) => ({ batchId, status, bodyBytes, ms })),
      medianMs: median,
      maxMs: max,
      goalMs: GOAL_MS,
      failures,
    };
    writeFileSync(`${base}.json`, JSON.stringify(report, null, 2));
    console.log(
      `\n${items}-item batch accepted: median ${median} ms, max ${max} ms ` +
        `(goal < ${GOAL_MS} ms: ${max < GOAL_MS ? 'met' : 'NOT met'})`,
    );
    failures.forEach((failure) => console.log(`FAIL ${failure}`));
    console.log(`report: ${relative(process.cwd(), `${base}.json`)}`);
    process.exitCode = failures.length ? 1 : 0;
  } finally {
    await db?.end();
    await stopAllProcesses();
    await devnet?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
