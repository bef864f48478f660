import { readFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { PASSWORD } from './console-identity';
import { TestApi } from './test-app';

// Screenshots of each page, for people (gitignored).
export const SCREENSHOTS = join(__dirname, '..', '..', 'test-results', 'console');

/** What a page reported: CSP violations (from the DOM event) and errors logged. */
export interface ConsolePage {
  page: Page;
  cspViolations: string[];
  errors: string[];
}

/** The API listening on a local port, and a Chromium to open the console in. */
export async function startConsoleBrowser(
  api: TestApi,
): Promise<{ baseUrl: string; browser: Browser }> {
  const server = api.app.getHttpServer() as http.Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return { baseUrl, browser };
}

export function newConsoleContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
}

/** A page that records CSP violations (listened for before any of its scripts run). */
export async function openConsolePage(context: BrowserContext): Promise<ConsolePage> {
  const page = await context.newPage();
  const result: ConsolePage = { page, cspViolations: [], errors: [] };
  await page.exposeFunction('reportCspViolation', (text: string) =>
    result.cspViolations.push(text),
  );
  // Runs through the DevTools protocol, which the page's CSP does not govern.
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportCspViolation(event.violatedDirective + ' ' + event.blockedURI));`,
  );
  page.on('pageerror', (error) => result.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') result.errors.push(message.text());
  });
  return result;
}

/** axe's serious and critical findings on the page as it is now. */
export async function seriousAxeViolations(
  page: Page,
): Promise<Array<{ id: string; impact: string }>> {
  // Evaluated through the DevTools protocol: the page's CSP rightly refuses a <script>.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate<Array<{ id: string; impact: string }>>(
    'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
  );
  return violations.filter((item) => ['serious', 'critical'].includes(item.impact));
}

/** Signs a member in through the form, with a recovery code as the second factor. */
export async function signInThroughForm(
  page: Page,
  baseUrl: string,
  email: string,
  recoveryCode: string,
): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Authentication code').fill(recoveryCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
}

export const navigationLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
