import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { authenticator } from 'otplib';
import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { ConsoleRole, MerchantsService } from '@app/auth';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { buildConsole } from './console-build';
import { ConsoleMember, PASSWORD, signedInMember } from './console-identity';
import { creditBalance } from './ledger-credit';
import { cleanUpPayouts } from './payouts-api';
import { TestApi, TestMerchant } from './test-app';
import { withEnvironment } from './webhook-env';
import { WebhookReceiver } from './webhook-receiver';
import { startWebhookWorker } from './webhook-worker';

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

/** A browser context in English at 1280×900; `options` adds to it (clipboard permissions…). */
export function newConsoleContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  return browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 900 },
    ...options,
  });
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

/** A full-page screenshot of the page as it is now, for people (SCREENSHOTS, gitignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
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

/**
 * Accepts an invitation in the browser (console or /ops): sets the password, enrols TOTP from the
 * secret the page shows (a QR code and the secret as text), and returns the 10 recovery codes.
 */
export async function acceptInvitationInBrowser(
  page: Page,
  url: string,
  options: { enrolmentScreenshot?: string } = {},
): Promise<string[]> {
  await page.goto(url);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  const qr = page.getByRole('img', { name: 'QR code of your two-factor secret' });
  await qr.waitFor();
  if (options.enrolmentScreenshot) await screenshot(page, options.enrolmentScreenshot);
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
  const secret = (await page.locator('code.secret').textContent()) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel('Authentication code').fill(authenticator.generate(secret));
  await page.getByRole('button', { name: 'Verify' }).click();
  const codes = page.getByRole('list', { name: 'Save your recovery codes' }).getByRole('listitem');
  await codes.first().waitFor();
  const recoveryCodes = await codes.allTextContents();
  expect(recoveryCodes).toHaveLength(10);
  await page.getByRole('button', { name: 'Continue' }).click();
  return recoveryCodes;
}

/** What a console browser suite runs against; `close()` undoes all of it. */
export interface ConsoleRig {
  api: TestApi;
  browser: Browser;
  baseUrl: string;
  /** A merchant of this suite: its payouts still held are rejected by `close()`. */
  createMerchant(name: string): Promise<TestMerchant>;
  /**
   * A merchant of this suite that pays out: `tronUsdt` credited on TRON as a confirmed deposit
   * would, a payout fee of 0.5 %, and no review of new destinations.
   */
  createPayoutMerchant(name: string, tronUsdt: string): Promise<TestMerchant>;
  /**
   * A new member of the merchant (signedInMember: `role`, the email's `label`) signed in through
   * the form with a recovery code, in a fresh browser context: the page, what it reports, the
   * context (the test closes it) and the member.
   */
  signIn(
    merchant: TestMerchant,
    role: ConsoleRole,
    label?: string,
  ): Promise<ConsolePage & { context: BrowserContext; member: ConsoleMember }>;
  close(): Promise<void>;
}

/** With webhooks: a worker delivering every 50 ms, to a local receiver private URLs may reach. */
export interface ConsoleWebhookRig extends ConsoleRig {
  target: WebhookReceiver;
}

/** The console built, the API listening on a local port, and a Chromium. */
export function startConsoleRig(): Promise<ConsoleRig> {
  return startRig(false);
}

export function startConsoleWebhookRig(): Promise<ConsoleWebhookRig> {
  return startRig(true) as Promise<ConsoleWebhookRig>;
}

async function startRig(webhooks: boolean): Promise<ConsoleRig | ConsoleWebhookRig> {
  // Undone last to first by close(), or at once when a later step fails (a browser left open
  // would keep Jest from exiting).
  const undo: Array<() => Promise<void> | void> = [];
  const merchants: TestMerchant[] = [];
  const close = async () => {
    for (const step of undo.reverse()) await step();
  };
  try {
    // Read by the API and the worker when they start.
    if (webhooks) {
      undo.push(
        withEnvironment({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50' }),
      );
    }
    await buildConsole();
    const api = await TestApi.start();
    undo.push(() => api.close());
    let target: WebhookReceiver | undefined;
    if (webhooks) {
      const worker = await startWebhookWorker();
      undo.push(() => worker.close());
      const receiver = await WebhookReceiver.start();
      undo.push(() => receiver.stop());
      target = receiver;
    }
    const { baseUrl, browser } = await startConsoleBrowser(api);
    undo.push(() => browser.close());
    undo.push(() => cleanUpPayouts(api, merchants));
    const createMerchant = async (name: string) => {
      const merchant = await api.createMerchant({ name });
      merchants.push(merchant);
      return merchant;
    };
    const rig: ConsoleRig = {
      api,
      browser,
      baseUrl,
      createMerchant,
      createPayoutMerchant: async (name, tronUsdt) => {
        const merchant = await createMerchant(name);
        await creditBalance(api.dataSource, {
          merchantId: merchant.id,
          network: 'TRON',
          currency: 'USDT',
          amount: tronUsdt,
        });
        await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', false);
        return merchant;
      },
      signIn: async (merchant, role, label) => {
        const member = await signedInMember(api, merchant, role, label);
        const context = await newConsoleContext(browser);
        const opened = await openConsolePage(context);
        await signInThroughForm(opened.page, baseUrl, member.email, member.recoveryCodes[0]);
        return { ...opened, context, member };
      },
      close,
    };
    return target ? { ...rig, target } : rig;
  } catch (error) {
    await close();
    throw error;
  }
}

export const navigationLink = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
