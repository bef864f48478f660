import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import { randomEvmAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund, RefundBody } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';

const EVM_BAD_CHECKSUM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';

/*
 * The customer's side of a refund in Chromium, under the page's real CSP: the session's link
 * alone, or a wrong secret, does not show the form; the refund's own link (destination_url)
 * does, with the delay before sending; a wrong address is refused in place, a good one makes
 * the refund Pending and says when it will be sent; a form past its deadline hides itself.
 */
describe('Refund form on the hosted page, in Chromium', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let browser: Browser;
  let baseUrl: string;
  const delayBefore = process.env.REFUND_DESTINATION_DELAY_MINUTES;

  beforeAll(async () => {
    process.env.REFUND_DESTINATION_DELAY_MINUTES = '15';
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
    process.env.REFUND_DESTINATION_DELAY_MINUTES = delayBefore;
  });

  /** The refund's customer link, on this test server, in English. */
  const linkOf = (refund: RefundBody) => {
    const url = new URL(refund.destination_url!);
    return `${baseUrl}${url.pathname}?locale=en${url.hash}`;
  };

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
    // The session's link alone shows no form (its script has run by the load event).
    await page.goto(`${baseUrl}/checkout/${session.id}?locale=en`, { waitUntil: 'load' });
    expect(await page.locator('#refund').isHidden()).toBe(true);
    // Nor does a wrong secret, once the server has refused it.
    const refused = page.waitForResponse((response) => response.url().endsWith('/access'));
    await page.goto(`${baseUrl}/checkout/${session.id}?locale=en#refund=${refund.id}&secret=x`);
    expect((await refused).status()).toBe(404);
    expect(await page.locator('#refund').isHidden()).toBe(true);

    await page.goto(linkOf(refund));
    // 20 USDT less Ethereum's 3 USDT network fee.
    await page.getByText('is refunding you 17 USDT').waitFor();
    await page.getByText('the refund is sent 15 minutes after you enter the address').waitFor();

    await page.getByLabel('Your USDT address on').fill(EVM_BAD_CHECKSUM);
    await page.getByRole('button', { name: 'Send my refund' }).click();
    await page.getByText('The refund could not be requested: to_address').waitFor();

    const to = randomEvmAddress();
    await page.getByLabel('Your USDT address on').fill(to);
    await page.getByRole('button', { name: 'Send my refund' }).click();
    await page.getByText(`Your refund will be sent to ${to} after`).waitFor();
    expect(await page.locator('#refund-form').isHidden()).toBe(true);

    const { body: after } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(after as RefundBody).toMatchObject({
      status: 'Pending',
      to_address: to,
      destination_url: null,
      send_after: expect.any(String),
    });
    // The form needs nothing the CSP refuses (inline script, form submission, other origins).
    expect(errors).toEqual([]);
    await page.close();
  });

  it('offers exactly the refund its link names, an older one of several too', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    // Two refunds waiting on one session; each link opens its own (Ethereum's fee: 3 USDT).
    const { body: older } = await postSessionRefund(api, merchant, session.id, {
      amount: '8',
    }).expect(201);
    const { body: newer } = await postSessionRefund(api, merchant, session.id, {
      amount: '10',
    }).expect(201);
    const page = await browser.newPage();
    await page.goto(linkOf(older));
    await page.getByText('is refunding you 5 USDT').waitFor();
    // The newer one's link on the same page (only the fragment changes): now that one.
    await page.goto(linkOf(newer));
    await page.getByText('is refunding you 7 USDT').waitFor();
    const to = randomEvmAddress();
    await page.getByLabel('Your USDT address on').fill(to);
    await page.getByRole('button', { name: 'Send my refund' }).click();
    await page.getByText(`Your refund will be sent to ${to} after`).waitFor();
    const { body: taken } = await api.get(`/v1/refunds/${newer.id}`, merchant).expect(200);
    expect(taken as RefundBody).toMatchObject({ status: 'Pending', to_address: to });
    const { body: waiting } = await api.get(`/v1/refunds/${older.id}`, merchant).expect(200);
    expect((waiting as RefundBody).status).toBe('requires_destination');
    // A link with another refund's secret: nothing shown.
    const refused = page.waitForResponse((response) => response.url().endsWith('/access'));
    const wrong = new URL(linkOf(older));
    wrong.hash = `refund=${older.id}&secret=${new URLSearchParams(new URL(newer.destination_url!).hash.slice(1)).get('secret')}`;
    await page.goto(wrong.href);
    expect((await refused).status()).toBe(404);
    expect(await page.locator('#refund').isHidden()).toBe(true);
    await page.close();
  });

  it('opens a refund created while the session’s page is open, when its link arrives', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/checkout/${session.id}?locale=en`, { waitUntil: 'load' });
    expect(await page.locator('#refund').count()).toBe(0);
    // The merchant refunds while the page is open; the customer opens the link in that tab,
    // which changes only the fragment (no new page load of its own).
    const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
    await page.goto(linkOf(refund));
    await page.getByText('is refunding you 17 USDT').waitFor();
    await page.close();
  });

  it('hides the form at the refund’s deadline, without a reload', async () => {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '50',
      received: '20',
      status: 'Underpaid',
    });
    const { body: refund } = await postSessionRefund(api, merchant, session.id).expect(201);
    // Its deadline (REFUND_DESTINATION_EXPIRY_MINUTES after creation) 10 seconds away.
    await api.dataSource.query(
      `UPDATE refunds SET created_at = now() - make_interval(mins => $2) + interval '10 seconds'
        WHERE id = $1`,
      [refund.id, Number(process.env.REFUND_DESTINATION_EXPIRY_MINUTES ?? 10080)],
    );
    const page = await browser.newPage();
    await page.goto(linkOf(refund));
    await page.getByText('is refunding you 17 USDT').waitFor();
    await page.locator('#refund').waitFor({ state: 'hidden', timeout: 20_000 });
    await page.close();
  });
});
