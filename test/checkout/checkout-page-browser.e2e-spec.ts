import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { Browser, chromium, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { SessionExpiryService } from '@app/checkout';
import { DepositWatcherService } from '@app/deposits';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import { createSession } from '../support/sessions-api';

const CONFIRMATIONS = 2;
// Screenshots of each state, for people (gitignored).
const SCREENSHOTS = join(__dirname, '..', '..', 'test-results', 'checkout-page');

jest.setTimeout(120_000);

/*
 * The hosted page in a real browser against the real API, paid on a real chain (anvil + ERC-20):
 * the deposit watcher's changes reach the open page through PostgreSQL NOTIFY and the page's
 * Server-Sent Events stream, without a reload.
 */
describe('Hosted checkout page in Chromium', () => {
  let browser: Browser;
  let thanks: http.Server;
  // This suite's chain is new: the one the previous suite watched as ETHEREUM is forgotten.
  const chain = useChainSuite({
    confirmations: CONFIRMATIONS,
    merchant: { name: 'Corner Café' },
    cleanUp: async () => {
      await browser?.close();
      thanks?.close();
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let baseUrl: string;
  let thanksUrl: string;

  beforeAll(async () => {
    ({ devnet, api, merchant } = chain);
    mkdirSync(SCREENSHOTS, { recursive: true });
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    thanks = http.createServer((_, response) => response.end('<h1>Thanks from the shop</h1>'));
    await new Promise<void>((resolve) => thanks.listen(0, '127.0.0.1', resolve));
    thanksUrl = `http://127.0.0.1:${(thanks.address() as AddressInfo).port}/thanks`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  const scan = () => api.app.get(DepositWatcherService).scan('ETHEREUM');
  const open = async (sessionId: string, viewport = { width: 1024, height: 900 }) => {
    const page = await browser.newPage({ viewport, locale: 'en-US' });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${baseUrl}/checkout/${sessionId}`);
    return { page, errors };
  };
  const phase = (page: Page) => page.locator('#checkout').getAttribute('data-phase');
  const waitForPhase = async (page: Page, expected: string) =>
    waitFor(async () => (await phase(page)) === expected, 30_000, `phase ${expected}`);
  const expectedUri = (payAddress: string, baseUnits: string) =>
    `ethereum:${devnet.tokens.USDT.contract}@${devnet.chainId}/transfer?address=${payAddress}&uint256=${baseUnits}`;
  /** Decodes the QR code as the browser shows it. */
  const readQr = async (page: Page): Promise<string | null> => {
    const png = PNG.sync.read(await page.locator('#qr').screenshot());
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('shows what to pay, updates live through a partial payment to paid, then redirects', async () => {
    const session = await createSession(api, merchant, {
      pricing_amount: '25',
      ...{ success_url: thanksUrl },
    });
    const { page, errors } = await open(session.id);
    expect(await page.locator('#address').textContent()).toBe(session.pay_address);
    expect(await page.locator('#pay-amount').textContent()).toBe('25');
    expect(await page.locator('body').textContent()).toContain('USDT');
    expect(await readQr(page)).toBe(expectedUri(session.pay_address, '25000000'));
    expect(await phase(page)).toBe('waiting');
    await shot(page, '1-waiting');

    await devnet.transfer('USDT', session.pay_address, '10');
    await scan();
    await waitForPhase(page, 'confirming');
    await shot(page, '2-confirming');
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    await waitForPhase(page, 'partial');
    await waitFor(async () => (await page.locator('#pay-amount').textContent()) === '15', 10_000);
    // The QR now asks for what is still due.
    await waitFor(
      async () => (await readQr(page)) === expectedUri(session.pay_address, '15000000'),
      10_000,
      'the QR of the rest',
    );
    await shot(page, '3-partially-paid');

    await devnet.transfer('USDT', session.pay_address, '15');
    await devnet.mine(CONFIRMATIONS - 1);
    await scan();
    await waitForPhase(page, 'paid');
    await shot(page, '4-paid');
    expect(await page.locator('#redirect-notice').isVisible()).toBe(true);
    await page.waitForURL(thanksUrl, { timeout: 20_000 });
    expect(await page.locator('h1').textContent()).toBe('Thanks from the shop');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('turns to expired when the session runs out, without a reload', async () => {
    const session = await createSession(api, merchant, {
      pricing_amount: '5',
      ...{ cancel_url: 'https://shop.example/cart' },
    });
    const { page, errors } = await open(session.id);
    expect(await page.locator('#cancel').getAttribute('href')).toBe('https://shop.example/cart');
    await api.dataSource.query(
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [session.id],
    );
    await api.app.get(SessionExpiryService).expireDue();
    await waitForPhase(page, 'expired');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    await shot(page, '5-expired');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('fits a phone screen and has no serious accessibility violations (axe-core)', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '12.5' });
    const { page, errors } = await open(session.id, { width: 360, height: 640 });
    // Evaluated in the page (strings: this project compiles without the DOM library).
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.locator('#qr').isVisible()).toBe(true);
    await shot(page, '6-phone');
    // axe is evaluated through the DevTools protocol: the page's CSP rightly refuses a <script>.
    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = await page.evaluate<Array<{ id: string; impact: string }>>(
      'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
    );
    const serious = violations.filter((item) => ['serious', 'critical'].includes(item.impact));
    expect(serious).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows everything needed to pay without JavaScript', async () => {
    const session = await createSession(api, merchant, { pricing_amount: '7' });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/checkout/${session.id}?locale=de`);
    expect(await page.locator('#address').textContent()).toBe(session.pay_address);
    expect(await page.locator('#pay-amount').textContent()).toBe('7');
    expect(await readQr(page)).toBe(expectedUri(session.pay_address, '7000000'));
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await shot(page, '7-no-javascript-de');
    await context.close();
  });
});
