import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium';
import { randomEvmAddress } from './support/payouts-api';
import { paidSession, postSessionRefund, RefundBody } from './support/refunds-api';
import { TestApi, TestMerchant } from './support/test-app';

const EVM_BAD_CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';

/*
 * The customer's side of a refund in Chromium, under the page's real CSP: the hosted page shows
 * the form, a wrong address is refused in place, a good one makes the refund Pending.
 */
describe('Refund form on the hosted page, in Chromium', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Corner Café' });
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('takes the address the customer types, after refusing a mistyped one', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // The refused address is a 400, which Chromium logs as a failed load: expected here.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(message.text());
    });
    await page.goto(`${baseUrl}/checkout/${session.id}?locale=en`);
    // 20 USDT less Ethereum's 3 USDT network fee.
    await page.getByText('is refunding you 17 USDT').waitFor();

    await page.getByLabel('Your USDT address on').fill(EVM_BAD_CHECKSUM);
    await page.getByRole('button', { name: 'Send my refund' }).click();
    await page.getByText('The refund could not be requested: to_address').waitFor();

    const to = randomEvmAddress();
    await page.getByLabel('Your USDT address on').fill(to);
    await page.getByRole('button', { name: 'Send my refund' }).click();
    await page.getByText(`Your refund is on its way to ${to}.`).waitFor();
    expect(await page.locator('#refund-form').isHidden()).toBe(true);

    const { body: after } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(after as RefundBody).toMatchObject({ status: 'Pending', to_address: to });
    // The form needs nothing the CSP refuses (inline script, form submission, other origins).
    expect(errors).toEqual([]);
    await page.close();
  });
});
