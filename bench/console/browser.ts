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

/** Everything the page fetched, by the time the caller reads it. */
function recordResponses(page: Page): Request[] {
  const finished: Request[] = [];
  page.on('requestfinished', (request) => finished.push(request));
  return finished;
}

/**
 * The JavaScript files fetched: body bytes on the wire (Playwright's responseBodySize: encoded,
 * headers excluded), the decoded size and its gzip at zlib's default level (6), what a gzipping
 * server would send.
 */
async function javascriptOf(requests: Request[]) {
  const files = [];
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

/**
 * A cold first load of /console (new context: empty cache), signed out: from navigation start to
 * the sign-in form's email field visible and enabled, DOMContentLoaded and the load event's end,
 * the JavaScript, and every response's body bytes on the wire (HTML, CSS, JS, API).
 */
export async function firstLoad(browser: Browser, url: string) {
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
      javascript: await javascriptOf(responses),
      allTransferred: (await Promise.all(responses.map((request) => request.sizes()))).reduce(
        (sum, sizes) => sum + sizes.responseBodySize,
        0,
      ),
    };
  } finally {
    await context.close();
  }
}

/** A cold first load of /console signed in (the Home page): the JavaScript it fetches. */
export async function signedInFirstLoad(browser: Browser, url: string, cookie: string) {
  const context = await signedInContext(browser, url, cookie);
  try {
    const page = await context.newPage();
    const responses = recordResponses(page);
    await page.goto(`${url}/console`);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    const homeMs = await page.evaluate(() => performance.now());
    await page.waitForLoadState('networkidle');
    return { homeMs, javascript: await javascriptOf(responses) };
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

/**
 * The last finished list request whose query matches, as Chromium timed it: requestStart to
 * responseEnd (the API and loopback) and to responseStart (the API's first byte), ms.
 */
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

/**
 * One list render timed, on a new page of `context` (the app cached by it, the data not):
 * `setUp` leaves the page as the user has it and says which rows will answer the action (any
 * 100 without it); the time runs from the action to the 100th such row. Without `setUp` the
 * action is the navigation, whose start is the page clock's 0. `settle` waits for the network to
 * go quiet before reading the list request behind it.
 */
async function timeRender(
  context: BrowserContext,
  steps: {
    setUp?: (page: Page) => Promise<Accept | void>;
    act: (page: Page) => Promise<unknown>;
    query?: (query: URLSearchParams) => boolean;
    settle?: boolean;
  },
) {
  const page = await context.newPage();
  try {
    const accept = (await steps.setUp?.(page)) ?? ANY_ROWS;
    const responses = recordResponses(page);
    const started = steps.setUp ? await page.evaluate(() => performance.now()) : 0;
    await steps.act(page);
    const done = await hundredRows(page, accept);
    const afterResponseMs = await afterResponse(page, done);
    if (steps.settle) await page.waitForLoadState('networkidle');
    return {
      renderMs: done - started,
      /** From the list response's last byte to the 100th row (parse, React, layout), ms. */
      afterResponseMs,
      ...listTiming(responses, steps.query ?? (() => true)),
      rows: await page.locator(ROWS).count(),
    };
  } finally {
    await page.close();
  }
}

/** The Payments measurements: a name, what is timed, and how. */
export function paymentsRenders(context: BrowserContext, url: string) {
  const payments = async (page: Page) => {
    await page.goto(`${url}/console/payments`);
    await hundredRows(page, ANY_ROWS);
  };
  const day = (daysAgo: number) =>
    new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  return [
    {
      name: 'navigate',
      what: 'page.goto(/console/payments) to the 100th row',
      render: () =>
        timeRender(context, { act: (page) => page.goto(`${url}/console/payments`), settle: true }),
    },
    {
      name: 'nav-click',
      what: 'click on Payments (Home shown) to the 100th row',
      render: () =>
        timeRender(context, {
          setUp: async (page) => {
            await page.goto(`${url}/console`);
            await page.getByRole('heading', { name: 'Home' }).waitFor();
            await page.waitForLoadState('networkidle');
          },
          act: (page) =>
            page
              .getByRole('navigation', { name: 'Main' })
              .getByRole('link', { name: 'Payments', exact: true })
              .click(),
          settle: true,
        }),
    },
    {
      name: 'status-paid',
      what: 'status Paid chosen to 100 Paid rows',
      render: () =>
        timeRender(context, {
          setUp: async (page) => {
            await payments(page);
            await page.waitForLoadState('networkidle');
            return { kind: 'status', status: 'Paid' };
          },
          act: (page) => page.getByLabel('Status').selectOption('Paid'),
          query: (query) => query.get('status') === 'Paid',
        }),
    },
    {
      // "Created from" already set to two days ago (UTC); "Created until" set to yesterday.
      name: 'date-range',
      what: '"Created until" set (from two days ago to yesterday) to its 100 rows',
      render: () =>
        timeRender(context, {
          setUp: async (page) => {
            await payments(page);
            // Listened for before the change: the answer can come before fill() returns.
            const fromAnswered = page.waitForResponse((response) =>
              response.url().includes('created_after='),
            );
            await page.getByLabel('Created from').fill(day(2));
            await fromAnswered;
            await hundredRows(page, ANY_ROWS);
            await page.waitForLoadState('networkidle');
            const first = await page.locator(`${ROWS} th`).first().innerText();
            return { kind: 'first-not', id: first };
          },
          act: (page) => page.getByLabel('Created until').fill(day(1)),
          query: (query) => query.has('created_before'),
        }),
    },
  ];
}
