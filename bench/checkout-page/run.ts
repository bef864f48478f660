// npm run bench:checkout-page [-- options]: how fast the hosted checkout page paints and how much
// it transfers, cold, in Debian's Chromium against the built API. See bench/checkout-page/README.md.
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/chromium';
import { createMerchant, freshTarget, postgresVersion } from '../kit/database';
import { parseOptions } from '../kit/options';
import { build, runCli } from '../kit/processes';
import { describeMachine, writeJson } from '../kit/report';
import { runBenchmark } from '../kit/run';
import { percentile } from '../kit/stats';
import { callApi, startApi } from '../kit/services';
import { environment, target } from '../kit/settings';

const USAGE = `Usage: npm run bench:checkout-page [-- options]
  --no-build   use dist/ as it is (default: npm run build first)
  --loads N    cold loads of the page (default 20)`;
const options = parseOptions(USAGE, { loads: { type: 'string', default: '20' } });
const LOADS = options.whole('loads');
const TARGET = target('payments_bench_checkout_page', 2);
// No chain; the page's rate limit raised (one client loads it 20 times in a row).
const ENV = environment(TARGET, {
  WATCH_NETWORKS: 'none',
  RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: '1000000',
});

// Evaluated in the page after `load`: paint timings and bytes over the wire (headers included).
const MEASURE = `(() => {
  const paint = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  return {
    firstPaintMs: paint('first-paint'),
    firstContentfulPaintMs: paint('first-contentful-paint'),
    loadMs: navigation.loadEventEnd,
    transferBytes: navigation.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
    files: [navigation.name, ...resources.map((r) => r.name)].length,
  };
})()`;

interface Load {
  firstPaintMs: number;
  firstContentfulPaintMs: number;
  loadMs: number;
  transferBytes: number;
  files: number;
}

/** Each load in a new browser context (no cache), at a phone's viewport. */
async function measure(browser: Browser, url: string): Promise<Load[]> {
  const loads: Load[] = [];
  for (let index = 0; index < LOADS; index++) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    // Paint entries are recorded after the frame is presented, which can follow `load`.
    // (Polled with evaluate: waitForFunction would eval in the page, which its CSP refuses.)
    const painted = `performance.getEntriesByName('first-contentful-paint').length > 0`;
    while (!(await page.evaluate<boolean>(painted))) await page.waitForTimeout(20);
    loads.push(await page.evaluate<Load>(MEASURE));
    await context.close();
  }
  return loads;
}

runBenchmark('checkout-page', async ({ step, base, log, onStop, startedAt }) => {
  build(options.build, step);
  const db = await freshTarget(TARGET, step, ENV);
  const postgres = await postgresVersion(db);
  await db.end();
  runCli(['pool:fill', '--count', '2000'], ENV);
  const api = await startApi({ env: ENV, logFile: log('api') });
  const merchant = createMerchant(ENV, 'Page bench');
  const session = await callApi<{ id: string }>(
    api,
    merchant.apiKey,
    'POST',
    '/v1/checkout/sessions',
    {
      pricing_amount: '49.99',
      pricing_currency: 'USD',
      currency: 'USDT',
      network: 'ETHEREUM',
      success_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
    },
  );
  const url = `${api.url}/checkout/${session.id}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  onStop(() => browser.close());
  step(`${LOADS} cold loads of ${url} in ${browser.version()}, phone viewport`);
  const loads = await measure(browser, url);
  const figure = (pick: (load: Load) => number) => {
    const values = loads.map(pick);
    return { p50: percentile(values, 50), p95: percentile(values, 95), max: Math.max(...values) };
  };
  const report = {
    startedAt: new Date(startedAt).toISOString(),
    machine: describeMachine(postgres, 'no chain'),
    loads: LOADS,
    firstPaintMs: figure((load) => load.firstPaintMs),
    firstContentfulPaintMs: figure((load) => load.firstContentfulPaintMs),
    loadMs: figure((load) => load.loadMs),
    transferBytes: loads[0].transferBytes,
    files: loads[0].files,
  };
  const ms = (f: { p50: number; p95: number; max: number }) =>
    `p50 ${f.p50.toFixed(0)} ms, p95 ${f.p95.toFixed(0)} ms, max ${f.max.toFixed(0)} ms`;
  const verdict = (met: boolean) => (met ? 'PASS' : '<< BELOW TARGET');
  const kB = (report.transferBytes / 1000).toFixed(1);
  console.log(`first paint:             ${ms(report.firstPaintMs)}`);
  console.log(`first contentful paint:  ${ms(report.firstContentfulPaintMs)}`);
  console.log(`load event:              ${ms(report.loadMs)}`);
  console.log(`transferred (cold):      ${report.transferBytes} bytes in ${report.files} files`);
  const firstPaintP95 = report.firstPaintMs.p95;
  const goals = { firstPaint: firstPaintP95 < 1000, transfer: report.transferBytes < 100_000 };
  console.log(
    `Goal: first paint under 1 s: p95 ${firstPaintP95.toFixed(0)} ms ${verdict(goals.firstPaint)}`,
  );
  console.log(`Goal: under 100 kB transferred: ${kB} kB ${verdict(goals.transfer)}`);
  writeJson(`${base}.json`, { ...report, goals });
  // As every benchmark: a goal missed is exit code 1, for scripts that run them.
  if (!goals.firstPaint || !goals.transfer) process.exitCode = 1;
});
