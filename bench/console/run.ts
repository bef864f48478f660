// npm run bench:console [-- options]: the console's first load and its Payments list of 100
// sessions over a million sessions of one merchant, in Debian's Chromium against the built API and
// worker as the README starts them. See bench/console/README.md.
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/chromium';
import type { Client } from 'pg';
import { connectDatabase, createMerchant, postgresVersion, seededTarget } from '../kit/database';
import { parseOptions } from '../kit/options';
import { build } from '../kit/processes';
import {
  count,
  describeMachine,
  fullMachineLine,
  gitDescription,
  quietness,
  quietnessWarnings,
  writeJson,
} from '../kit/report';
import { Run, runBenchmark } from '../kit/run';
import { startApi, startWorker, waitForPoolFill } from '../kit/services';
import { API_MAIN, CLI_MAIN, environment, target, WORKER_MAIN } from '../kit/settings';
import { inSlices } from '../kit/slices';
import { seedSessions } from '../lists/seed';
import { firstLoad, paymentsRenders, signedInContext, signedInFirstLoad } from './browser';
import { markdownReport, summary, totals } from './report';
import { signedInOwner } from './services';

// Issue 25's budgets.
const JS_BUDGET_BYTES = 200 * 1024;
const RENDER_BUDGET_MS = 1000;

const USAGE = `Usage: npm run bench:console [-- options]
  --no-build      use dist/ as it is (default: npm run build first)
  --reuse         keep the database of an earlier run with the same --sessions (no reseeding)
  --sessions N    sessions of the merchant (default 1000000)
  --runs N        timed runs of each measurement (default 20)`;

const options = parseOptions(USAGE, {
  reuse: { type: 'boolean', default: false },
  sessions: { type: 'string', default: '1000000' },
  runs: { type: 'string', default: '20' },
});
const SESSIONS = options.whole('sessions');
const RUNS = options.whole('runs');
const TARGET = target('payments_bench_console', 10);
// The service's own configuration, NODE_ENV unset as bench:api's default setup: no rate limit
// raised either (a person's reads).
const ENV = environment(TARGET, { NODE_ENV: undefined });
const SLICE = 100_000; // rows per INSERT statement, as bench:lists writes them
const DAY_MS = 86_400_000;
// The seed writes three sessions a second back from now: 1,000,000 reach 3.9 days back. Fewer
// would all be today's, and the date-range measurement ("Created until" yesterday) would wait for
// rows that do not exist; they are written in four groups a day apart instead.
const DAY_GROUPS = SESSIONS < (3 * DAY_MS * 3) / 1000 ? 4 : 1;

/** One merchant with SESSIONS sessions, written by bench:lists' seed. */
async function seed(db: Client, step: (message: string) => void): Promise<{ merchantId: string }> {
  step(`seeding ${count(SESSIONS)} sessions of one merchant (bench:lists' seed)`);
  const merchant = createMerchant(ENV, 'Console bench');
  const groupSize = Math.ceil(SESSIONS / DAY_GROUPS);
  for (let group = 0, now = Date.now(); group < DAY_GROUPS; group++) {
    const newest = new Date(now - group * DAY_MS);
    await inSlices(
      {
        from: group * groupSize + 1,
        to: Math.min((group + 1) * groupSize, SESSIONS),
        slice: SLICE,
      },
      (first, n) =>
        seedSessions(db, {
          merchantId: merchant.id,
          newest,
          idPrefix: 'cs_bench_',
          first,
          count: n,
        }),
      (last) => step(`  sessions: ${count(last)}`),
    );
  }
  return { merchantId: merchant.id };
}

/** One measurement RUNS times after one discarded (the API compiles the route, the app caches). */
async function timeList(
  step: (message: string) => void,
  { name, what, render }: ReturnType<typeof paymentsRenders>[number],
) {
  await render();
  const runs = [];
  for (let index = 0; index < RUNS; index++) runs.push(await render());
  const summaryOf = (values: Array<number | null>) => {
    const known = values.filter((value): value is number => value !== null);
    return known.length ? summary(known) : null;
  };
  const result = {
    name,
    what,
    render: summary(runs.map((r) => r.renderMs)),
    api: summaryOf(runs.map((r) => r.apiMs)),
    api_first_byte: summaryOf(runs.map((r) => r.apiFirstByteMs)),
    after_response: summaryOf(runs.map((r) => r.afterResponseMs)),
    query: runs[runs.length - 1].query,
    rows: Math.min(...runs.map((r) => r.rows)),
    runs,
  };
  step(
    `  ${name}: median ${result.render.median_ms} ms, p95 ${result.render.p95_ms} ms ` +
      `(API ${result.api?.median_ms ?? '?'} ms median)`,
  );
  return result;
}

async function measure({ step, log, onStop, startedAt }: Run) {
  build(options.build, step, [API_MAIN, WORKER_MAIN, CLI_MAIN, 'dist/console/index.html']);
  const seeded = await seededTarget(
    TARGET,
    ENV,
    { size: SESSIONS, reuse: Boolean(options.values.reuse), step },
    (db) => seed(db, step),
  );

  step('starting the API and one worker (default configuration and logging)');
  const api = await startApi({ env: ENV, logFile: log('api'), timeoutMs: 120_000 });
  const worker = await startWorker({ env: ENV, logFile: log('worker') });
  const db = await connectDatabase(TARGET.databaseUrl);
  const postgres = await postgresVersion(db);
  const filledInMs = await waitForPoolFill(db, worker).finally(() => db.end());
  step(`  pay-address pool full (${(filledInMs / 1000).toFixed(0)} s)`);
  // A 503 here means the API found no built console (dist/console): say so rather than time out.
  const page = await fetch(`${api.url}/console/sign-in`);
  if (page.status !== 200) {
    throw new Error(`GET /console/sign-in answered ${page.status}: ${await page.text()}`);
  }
  step('inviting an owner (console:invite), accepting and enrolling TOTP through the console API');
  const cookie = await signedInOwner(api.url, seeded.merchantId, ENV);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  onStop(() => browser.close());
  const quietAtStart = quietness();
  step(`first load of /console, signed out, cold cache, ${RUNS} times`);
  await firstLoad(browser, api.url); // discarded: the API's first answers
  const loads = [];
  for (let index = 0; index < RUNS; index++) loads.push(await firstLoad(browser, api.url));
  const signedIn = await signedInFirstLoad(browser, api.url, cookie);

  const context = await signedInContext(browser, api.url, cookie);
  onStop(() => context.close());
  step(`Payments, ${RUNS} runs each`);
  const lists = [];
  for (const measurement of paymentsRenders(context, api.url)) {
    lists.push(await timeList(step, measurement));
  }
  const quietAtEnd = quietness();

  const last = loads[loads.length - 1];
  return {
    date: new Date(startedAt).toISOString(),
    command: `npm run bench:console -- ${process.argv.slice(2).join(' ')}`.trim(),
    git: gitDescription(),
    machine: describeMachine(postgres, 'no anvil'),
    uptime: { start: quietAtStart, end: quietAtEnd },
    warnings: [
      ...quietnessWarnings(quietAtStart, 'start'),
      ...quietnessWarnings(quietAtEnd, 'end'),
    ],
    settings: { sessions: SESSIONS, runs: RUNS },
    budgets: { javascript_gzipped_bytes: JS_BUDGET_BYTES, list_render_ms: RENDER_BUDGET_MS },
    first_load: {
      interactive: summary(loads.map((load) => load.interactiveMs)),
      dom_content_loaded: summary(loads.map((load) => load.domContentLoadedMs)),
      load: summary(loads.map((load) => load.loadMs)),
      javascript: totals(last.javascript),
      all_transferred_bytes: last.allTransferred,
      files: last.javascript,
    },
    signed_in_first_load: {
      home_ms: Math.round(signedIn.homeMs * 10) / 10,
      javascript: totals(signedIn.javascript),
      files: signedIn.javascript,
    },
    lists,
  };
}

export type ConsoleReport = Awaited<ReturnType<typeof measure>>;

runBenchmark('console', async (run) => {
  const report = await measure(run);
  const markdown = markdownReport(report);
  writeFileSync(`${run.base}.md`, markdown);
  console.log(`\n${fullMachineLine(report.machine, report.uptime.start)}\n`);
  console.log(markdown);
  writeJson(`${run.base}.json`, report);
  const javascriptOver = report.first_load.javascript.gzipped_bytes > JS_BUDGET_BYTES;
  const listsOver = report.lists.filter((list) => list.render.p95_ms >= RENDER_BUDGET_MS);
  if (javascriptOver || listsOver.length) process.exitCode = 1;
});
