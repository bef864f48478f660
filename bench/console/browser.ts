/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (The functions passed to Chromium run in the page: the DOM types are theirs.)
import { gzipSync } from 'node:zlib';
import { Browser, BrowserContext, Page, Request } from 'playwright-core';

/*
 * What the benchmark measures in Chromium. Times are the page's own clock (performance.now(),
 * whose origin is the navigation's start), read when a condition first holds, polled every
 * animation frame: a row counts once it is in the DOM and the frame that shows it has begun.
 */

const ROWS = 'section[aria-labelledby="payments-title"] tbody tr';
const LIST_PATH = '/v1/checkout/sessions';

export interface JavaScriptFile {
  url: string;
  /** Body bytes on the wire (Playwright's responseBodySize: encoded, headers excluded). */
  transferred: number;
  contentEncoding: string | null;
  /** Decoded size, and its gzip at zlib's default level (6), what a gzipping server would send. */
  decoded: number;
  gzipped: number;
}

export interface FirstLoad {
  /** From navigation start to the sign-in form's email field visible and enabled, ms. */
  interactiveMs: number;
  /** Navigation timing: DOMContentLoaded and load event end, ms. */
  domContentLoadedMs: number;
  loadMs: number;
  javascript: JavaScriptFile[];
  /** Every response's body bytes on the wire (HTML, CSS, JS, API), headers excluded. */
  allTransferred: number;
}

/** Everything the page fetched, by the time the caller reads it. */
function recordResponses(page: Page): { finished: Request[] } {
  const finished: Request[] = [];
  page.on('requestfinished', (request) => finished.push(request));
  return { finished };
}

async function javascriptOf(requests: Request[]): Promise<JavaScriptFile[]> {
  const files: JavaScriptFile[] = [];
  for (const request of requests) {
    const response = await request.response();
    if (!response) continue;
    const type = response.headers()['content-type'] ?? '';
    if (request.resourceType() !== 'script' && !type.includes('javascript')) continue;
    const body = await response.body();
    const sizes = await request.sizes();
    files.push({
      url: new URL(request.url()).pathname,
      transferred: sizes.responseBodySize,
      contentEncoding: response.headers()['content-encoding'] ?? null,
      decoded: body.length,
      gzipped: gzipSync(body).length,
    });
  }
  return files;
}

async function transferredOf(requests: Request[]): Promise<number> {
  let sum = 0;
  for (const request of requests) sum += (await request.sizes()).responseBodySize;
  return sum;
}

/** A cold first load of /console (new context: empty cache), signed out: the sign-in form. */
export async function firstLoad(browser: Browser, url: string): Promise<FirstLoad> {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    const responses = recordResponses(page);
    await page.goto(`${url}/console`);
    const interactiveMs = await page.waitForFunction(
      () => {
        const field = [...document.querySelectorAll('label')].find((label) =>
          label.textContent?.trim().startsWith('Email'),
        )?.control as HTMLInputElement | null | undefined;
        const ready = field && !field.disabled && field.getClientRects().length > 0;
        return ready ? performance.now() : null;
      },
      undefined,
      { polling: 'raf' },
    );
    await page.waitForLoadState('networkidle');
    const navigation = await page.evaluate(() => {
      const entry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { domContentLoadedMs: entry.domContentLoadedEventEnd, loadMs: entry.loadEventEnd };
    });
    return {
      interactiveMs: (await interactiveMs.jsonValue()) as number,
      ...navigation,
      javascript: await javascriptOf(responses.finished),
      allTransferred: await transferredOf(responses.finished),
    };
  } finally {
    await context.close();
  }
}

/** A cold first load of /console signed in (the Home page): the JavaScript it fetches. */
export async function signedInFirstLoad(
  browser: Browser,
  url: string,
  cookie: string,
): Promise<{ homeMs: number; javascript: JavaScriptFile[] }> {
  const context = await signedInContext(browser, url, cookie);
  try {
    const page = await context.newPage();
    const responses = recordResponses(page);
    await page.goto(`${url}/console`);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    const homeMs = await page.evaluate(() => performance.now());
    await page.waitForLoadState('networkidle');
    return { homeMs, javascript: await javascriptOf(responses.finished) };
  } finally {
    await context.close();
  }
}

function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
}

export async function signedInContext(
  browser: Browser,
  url: string,
  cookie: string,
): Promise<BrowserContext> {
  const context = await newContext(browser);
  await context.addCookies([{ name: 'console_session', value: cookie, url, httpOnly: true }]);
  return context;
}

/** One timed list render, and the list request behind it as Chromium timed it. */
export interface ListRender {
  renderMs: number;
  /** requestStart -> responseEnd of the GET /v1/checkout/sessions (API and loopback), ms. */
  apiMs: number | null;
  /** requestStart -> responseStart (the API's time to its first byte), ms. */
  apiFirstByteMs: number | null;
  /** From the list response's last byte to the 100th row (parse, React, layout), ms. */
  afterResponseMs: number | null;
  query: string | null;
  rows: number;
}

/** The last finished list request whose query matches, with its timing. */
function listTiming(requests: Request[], matches: (query: URLSearchParams) => boolean) {
  for (const request of [...requests].reverse()) {
    const url = new URL(request.url());
    if (url.pathname !== LIST_PATH || !matches(url.searchParams)) continue;
    const timing = request.timing();
    return {
      apiMs: timing.responseEnd - timing.requestStart,
      apiFirstByteMs: timing.responseStart - timing.requestStart,
      query: url.search,
    };
  }
  return { apiMs: null, apiFirstByteMs: null, query: null };
}

/** Which rows count: any, all of one status, or a first row other than the one shown before. */
type Accept =
  { kind: 'any' } | { kind: 'status'; status: string } | { kind: 'first-not'; id: string };
const ANY_ROWS: Accept = { kind: 'any' };

/**
 * Waits until the table holds 100 rows that `accept` takes; returns performance.now() then.
 * (A plain condition, no eval: the console's CSP forbids it, rightly.)
 */
async function hundredRows(page: Page, accept: Accept): Promise<number> {
  const handle = await page.waitForFunction(
    ({ selector, accept }) => {
      const rows = [...document.querySelectorAll(selector)];
      if (rows.length < 100) return null;
      const text = (row: Element, cell: string) => row.querySelector(cell)?.textContent?.trim();
      const ok =
        accept.kind === 'any' ||
        (accept.kind === 'status' && rows.every((row) => text(row, 'td') === accept.status)) ||
        (accept.kind === 'first-not' && text(rows[0], 'th') !== accept.id);
      return ok ? performance.now() : null;
    },
    { selector: ROWS, accept },
    { polling: 'raf', timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** The page's own Resource Timing of its latest list request: `done` minus its responseEnd. */
async function afterResponse(page: Page, done: number): Promise<number | null> {
  const responseEnd = await page.evaluate((path) => {
    const entries = performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname === path);
    return entries.length
      ? (entries[entries.length - 1] as PerformanceResourceTiming).responseEnd
      : null;
  }, LIST_PATH);
  return responseEnd === null ? null : done - responseEnd;
}

const rowsCount = (page: Page) => page.locator(ROWS).count();
const firstRowId = (page: Page) => page.locator(`${ROWS} th`).first().innerText();

/** Navigation to /console/payments (app cached by the context, data not): to the 100th row. */
export async function loadPaymentsPage(context: BrowserContext, url: string): Promise<ListRender> {
  const page = await context.newPage();
  try {
    const responses = recordResponses(page);
    await page.goto(`${url}/console/payments`);
    const renderMs = await hundredRows(page, ANY_ROWS);
    const afterResponseMs = await afterResponse(page, renderMs);
    await page.waitForLoadState('networkidle');
    return {
      renderMs,
      afterResponseMs,
      ...listTiming(responses.finished, () => true),
      rows: await rowsCount(page),
    };
  } finally {
    await page.close();
  }
}

/** From the click on Payments in the nav (Home shown) to the 100th row. */
export async function clickToPayments(context: BrowserContext, url: string): Promise<ListRender> {
  const page = await context.newPage();
  try {
    await page.goto(`${url}/console`);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    await page.waitForLoadState('networkidle');
    const responses = recordResponses(page);
    const link = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Payments', exact: true });
    const started = await page.evaluate(() => performance.now());
    await link.click();
    const done = await hundredRows(page, ANY_ROWS);
    await page.waitForLoadState('networkidle');
    return {
      renderMs: done - started,
      afterResponseMs: await afterResponse(page, done),
      ...listTiming(responses.finished, () => true),
      rows: await rowsCount(page),
    };
  } finally {
    await page.close();
  }
}

/** On the Payments page, from choosing status Paid to 100 Paid rows. */
export async function filterByStatus(context: BrowserContext, url: string): Promise<ListRender> {
  const page = await context.newPage();
  try {
    await page.goto(`${url}/console/payments`);
    await hundredRows(page, ANY_ROWS);
    await page.waitForLoadState('networkidle');
    const responses = recordResponses(page);
    const started = await page.evaluate(() => performance.now());
    await page.getByLabel('Status').selectOption('Paid');
    const done = await hundredRows(page, { kind: 'status', status: 'Paid' });
    return {
      renderMs: done - started,
      afterResponseMs: await afterResponse(page, done),
      ...listTiming(responses.finished, (query) => query.get('status') === 'Paid'),
      rows: await rowsCount(page),
    };
  } finally {
    await page.close();
  }
}

/**
 * On the Payments page with "Created from" already set to two days ago (UTC), from setting
 * "Created until" to yesterday to the 100 newest rows of that two-day range.
 */
export async function filterByDateRange(context: BrowserContext, url: string): Promise<ListRender> {
  const page = await context.newPage();
  try {
    const day = (daysAgo: number) =>
      new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${url}/console/payments`);
    await hundredRows(page, ANY_ROWS);
    // Listened for before the change: the answer can come before fill() returns.
    const fromAnswered = page.waitForResponse((response) =>
      response.url().includes('created_after='),
    );
    await page.getByLabel('Created from').fill(day(2));
    await fromAnswered;
    await hundredRows(page, ANY_ROWS);
    await page.waitForLoadState('networkidle');
    const before = await firstRowId(page);
    const responses = recordResponses(page);
    const started = await page.evaluate(() => performance.now());
    await page.getByLabel('Created until').fill(day(1));
    const done = await hundredRows(page, { kind: 'first-not', id: before });
    return {
      renderMs: done - started,
      afterResponseMs: await afterResponse(page, done),
      ...listTiming(responses.finished, (query) => query.has('created_before')),
      rows: await rowsCount(page),
    };
  } finally {
    await page.close();
  }
}
