// npm run bench:console [-- options]: the console's first load and its Payments list of 100
// sessions over a million sessions of one merchant, in Debian's Chromium against the built API and
// worker as the README starts them. See bench/console/README.md.
import { writeFileSync } from 'node:fs';
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/chromium';
import type { Client } from 'pg';
import { connectDatabase, createMerchant, seededTarget } from '../kit/database';
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
import { runBenchmark } from '../kit/run';
import { percentile } from '../kit/stats';
import { startApi, startWorker, waitForPoolFill } from '../kit/services';
import { API_MAIN, CLI_MAIN, environment, target, WORKER_MAIN } from '../kit/settings';
import { seedSessions } from '../lists/seed';
import {
  clickToPayments,
  filterByDateRange,
  filterByStatus,
  FirstLoad,
  firstLoad,
  JavaScriptFile,
  ListRender,
  loadPaymentsPage,
  signedInContext,
  signedInFirstLoad,
} from './browser';
import { ConsoleReport, JavaScriptTotals, ListScenario, markdownReport, Summary } from './report';
import { signedInOwner } from './services';

// Issue 25's budgets.
export const JS_BUDGET_BYTES = 200 * 1024;
export const RENDER_BUDGET_MS = 1000;

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
  const now = Date.now();
  const groupSize = Math.ceil(SESSIONS / DAY_GROUPS);
  for (let first = 1, rows = 0; first <= SESSIONS; first += rows) {
    rows = Math.min(SLICE, groupSize - ((first - 1) % groupSize), SESSIONS - first + 1);
    await seedSessions(db, {
      merchantId: merchant.id,
      newest: new Date(now - Math.floor((first - 1) / groupSize) * DAY_MS),
      idPrefix: 'cs_bench_',
      first,
      count: rows,
    });
    step(`  sessions: ${count(first + rows - 1)}`);
  }
  return { merchantId: merchant.id };
}

const round = (value: number) => Math.round(value * 10) / 10;

function summary(values: number[]): Summary {
  return {
    median_ms: round(percentile(values, 50)),
    p95_ms: round(percentile(values, 95)),
    max_ms: round(Math.max(...values)),
  };
}

function totals(files: JavaScriptFile[]): JavaScriptTotals {
  const sum = (pick: (file: JavaScriptFile) => number) =>
    files.reduce((total, file) => total + pick(file), 0);
  return {
    files: files.length,
    transferred_bytes: sum((file) => file.transferred),
    decoded_bytes: sum((file) => file.decoded),
    gzipped_bytes: sum((file) => file.gzipped),
    encodings: [...new Set(files.map((file) => file.contentEncoding ?? 'none'))],
  };
}

async function timeList(
  step: (message: string) => void,
  name: string,
  what: string,
  run: () => Promise<ListRender>,
): Promise<ListScenario> {
  // One run first, discarded: the API compiles the route and the context caches the app.
  await run();
  const runs: ListRender[] = [];
  for (let index = 0; index < RUNS; index++) runs.push(await run());
  const api = runs.map((r) => r.apiMs).filter((ms): ms is number => ms !== null);
  const firstByte = runs.map((r) => r.apiFirstByteMs).filter((ms): ms is number => ms !== null);
  const after = runs.map((r) => r.afterResponseMs).filter((ms): ms is number => ms !== null);
  const result: ListScenario = {
    name,
    what,
    render: summary(runs.map((r) => r.renderMs)),
    api: api.length ? summary(api) : null,
    api_first_byte: firstByte.length ? summary(firstByte) : null,
    after_response: after.length ? summary(after) : null,
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

runBenchmark('console', async ({ step, base, log, onStop, startedAt }) => {
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
  const filledInMs = await waitForPoolFill(db, worker).finally(() => db.end());
  step(`  pay-address pool full (${(filledInMs / 1000).toFixed(0)} s)`);
  // A 503 here means the API found no built console (dist/console): say so rather than time out.
  const page = await fetch(`${api.url}/console/sign-in`);
  if (page.status !== 200) {
    throw new Error(`GET /console/sign-in answered ${page.status}: ${await page.text()}`);
  }
  const service = { url: api.url };
  step('inviting an owner (console:invite), accepting and enrolling TOTP through the console API');
  const cookie = await signedInOwner(service.url, seeded.merchantId, ENV);

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  onStop(() => browser.close());
  const quietAtStart = quietness();
  step(`first load of /console, signed out, cold cache, ${RUNS} times`);
  await firstLoad(browser, service.url); // discarded: the API's first answers
  const loads: FirstLoad[] = [];
  for (let index = 0; index < RUNS; index++) loads.push(await firstLoad(browser, service.url));
  const signedIn = await signedInFirstLoad(browser, service.url, cookie);

  const ctx = await signedInContext(browser, service.url, cookie);
  onStop(() => ctx.close());
  const url = service.url;
  step(`Payments, ${RUNS} runs each`);
  const lists = [
    await timeList(step, 'navigate', 'page.goto(/console/payments) to the 100th row', () =>
      loadPaymentsPage(ctx, url),
    ),
    await timeList(step, 'nav-click', 'click on Payments (Home shown) to the 100th row', () =>
      clickToPayments(ctx, url),
    ),
    await timeList(step, 'status-paid', 'status Paid chosen to 100 Paid rows', () =>
      filterByStatus(ctx, url),
    ),
    await timeList(
      step,
      'date-range',
      '"Created until" set (from two days ago to yesterday) to its 100 rows',
      () => filterByDateRange(ctx, url),
    ),
  ];
  const quietAtEnd = quietness();

  const last = loads[loads.length - 1];
  const report: ConsoleReport = {
    date: new Date(startedAt).toISOString(),
    command: `npm run bench:console -- ${process.argv.slice(2).join(' ')}`.trim(),
    git: gitDescription(),
    machine: describeMachine('n/a', 'no anvil'),
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
      home_ms: round(signedIn.homeMs),
      javascript: totals(signedIn.javascript),
      files: signedIn.javascript,
    },
    lists,
  };
  const markdown = markdownReport(report);
  writeFileSync(`${base}.md`, markdown);
  console.log(`\n${fullMachineLine(report.machine, quietAtStart)}\n`);
  console.log(markdown);
  writeJson(`${base}.json`, report);
  const javascriptOver = report.first_load.javascript.gzipped_bytes > JS_BUDGET_BYTES;
  const listsOver = lists.filter((list) => list.render.p95_ms >= RENDER_BUDGET_MS);
  if (javascriptOver || listsOver.length) process.exitCode = 1;
});
