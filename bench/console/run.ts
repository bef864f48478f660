// npm run bench:console [-- options]: the console's first load and its Payments list of 100
// sessions over a million sessions of one merchant, in Debian's Chromium against the built API and
// worker as the README starts them. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Browser, BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/chromium';
import { build, installCleanup, runCli, stopAllProcesses } from '../deposits/processes';
import { describeMachine, gitDescription } from '../deposits/report';
import { CLI_MAIN, RESULTS_DIR, ROOT, WORKER_MAIN } from '../deposits/settings';
import { fullMachineLine, quietness, quietnessWarnings } from '../payouts/report';
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
import { benchEnvironment, earlierSeed, seedDatabase } from './database';
import { ConsoleReport, JavaScriptTotals, ListScenario, markdownReport, Summary } from './report';
import { API_MAIN, signedInOwner, startService } from './services';

// Issue 25's budgets.
export const JS_BUDGET_BYTES = 200 * 1024;
export const RENDER_BUDGET_MS = 1000;

const USAGE = `Usage: npm run bench:console [-- options]
  --no-build      use dist/ as it is (default: npm run build first)
  --reuse         keep the database of an earlier run with the same --sessions (no reseeding)
  --sessions N    sessions of the merchant (default 1000000)
  --runs N        timed runs of each measurement (default 20)`;

const { values: args } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    sessions: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '20' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const SESSIONS = wholeNumber(args.sessions, 'sessions');
const RUNS = wholeNumber(args.runs, 'runs');

const startedAt = Date.now();
function step(message: string): void {
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s] ${message}`);
}

function wholeNumber(value: string | undefined, name: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    console.error(`--${name} must be a whole number >= 1.\n\n${USAGE}`);
    process.exit(2);
  }
  return number;
}

const round = (value: number) => Math.round(value * 10) / 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

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

async function main(): Promise<void> {
  installCleanup(stopAllProcesses);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `console-${stamp}`);
  build(!args['no-build'], step, [API_MAIN, WORKER_MAIN, CLI_MAIN, 'dist/console/index.html']);

  let seeded = args.reuse ? await earlierSeed(SESSIONS) : null;
  if (seeded) {
    step(`--reuse: the ${SESSIONS.toLocaleString('en-US')} sessions of an earlier run; migrating`);
    runCli(['db:migrate'], benchEnvironment());
  } else {
    step(
      `seeding ${SESSIONS.toLocaleString('en-US')} sessions of one merchant (bench:lists' seed)`,
    );
    seeded = await seedDatabase(SESSIONS, step);
  }

  step('starting the API and one worker (default configuration and logging)');
  const service = await startService(base, step);
  step('inviting an owner (console:invite), accepting and enrolling TOTP through the console API');
  const cookie = await signedInOwner(service.url, seeded.merchantId);

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  let context: BrowserContext | null = null;
  const quietAtStart = quietness();
  try {
    step(`first load of /console, signed out, cold cache, ${RUNS} times`);
    await firstLoad(browser, service.url); // discarded: the API's first answers
    const loads: FirstLoad[] = [];
    for (let index = 0; index < RUNS; index++) loads.push(await firstLoad(browser, service.url));
    const signedIn = await signedInFirstLoad(browser, service.url, cookie);

    context = await signedInContext(browser, service.url, cookie);
    const ctx = context;
    const url = service.url;
    step(`Payments, ${RUNS} runs each`);
    const lists = [
      await timeList('navigate', 'page.goto(/console/payments) to the 100th row', () =>
        loadPaymentsPage(ctx, url),
      ),
      await timeList('nav-click', 'click on Payments (Home shown) to the 100th row', () =>
        clickToPayments(ctx, url),
      ),
      await timeList('status-paid', 'status Paid chosen to 100 Paid rows', () =>
        filterByStatus(ctx, url),
      ),
      await timeList(
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
    writeFileSync(`${base}.json`, JSON.stringify(report, null, 2));
    const markdown = markdownReport(report);
    writeFileSync(`${base}.md`, markdown);
    console.log(`\n${fullMachineLine(report.machine, quietAtStart)}\n`);
    console.log(markdown);
    console.log(`Report: ${relative(ROOT, `${base}.json`)} and .md`);
    const javascriptOver = report.first_load.javascript.gzipped_bytes > JS_BUDGET_BYTES;
    const listsOver = lists.filter((list) => list.render.p95_ms >= RENDER_BUDGET_MS);
    if (javascriptOver || listsOver.length) process.exitCode = 1;
  } finally {
    await context?.close();
    await browser.close();
    await stopAllProcesses();
  }
}

main().catch(async (error) => {
  console.error(error);
  await stopAllProcesses();
  process.exit(1);
});
