import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { buildConsole } from '../support/console-build';
import {
  navigationLink,
  newConsoleContext,
  openConsolePage,
  SCREENSHOTS,
  seriousAxeViolations,
  startConsoleBrowser,
} from '../support/console-browser-kit';
import { inviteMember, PASSWORD, signedInMember } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSION_BODY = {
  pricing_amount: '12',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
};

/*
 * Issue 25's switchers in a real Chromium: an owner of a PSP accepts a second merchant's
 * invitation by signing in to the account it has, switches back to the PSP in the header, acts
 * for one sub-merchant and sees only that sub-merchant's sessions (also after a reload: the
 * choice is kept per tab), then goes back to all of them. Strict CSP and axe throughout.
 */
describe('Console switchers in Chromium (issue 25)', () => {
  let api: TestApi;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await buildConsole();
    api = await TestApi.start();
    ({ baseUrl, browser } = await startConsoleBrowser(api));
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  /** A session by the merchant's key, for a sub-merchant when `code` is given. */
  async function createSession(merchant: TestMerchant, code?: string): Promise<string> {
    for (;;) {
      const response = await api.post(
        '/v1/checkout/sessions',
        merchant,
        SESSION_BODY,
        code ? { 'X-Sub-Merchant-Code': code } : {},
      );
      // Over the per-second write limit: the next second has room.
      if (response.status === 429) continue;
      expect(response.status).toBe(201);
      return (response.body as { id: string }).id;
    }
  }

  /** The session ids the Payments table shows, once it shows exactly `count` rows. */
  async function paymentRows(page: Page, count: number): Promise<string[]> {
    const rows = page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === count, 30_000, `${count} payment rows`);
    const texts = await rows.allTextContents();
    return texts.map((text) => /cs_[A-Za-z0-9]{22}/.exec(text)?.[0] ?? text).sort();
  }

  it('accepts a second merchant with an existing account, switches merchant and sub-merchant', async () => {
    const psp = await api.createMerchant({ name: 'Switcher PSP', kind: 'psp' });
    const other = await api.createMerchant({ name: 'Switcher Other' });
    for (const code of ['alpha', 'beta']) {
      await api
        .post('/v1/sub-merchants', psp, { code, name: `Shop ${code}`, status: 'active' })
        .expect(201);
    }
    const own = await createSession(psp);
    const ofAlpha = [await createSession(psp, 'alpha'), await createSession(psp, 'alpha')].sort();
    const ofBeta = await createSession(psp, 'beta');
    const member = await signedInMember(api, psp, 'owner');
    const { token } = await inviteMember(api, other, member.email, 'viewer');

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);

    // The invitation asks the existing account to sign in, not for a new password.
    await page.goto(`${baseUrl}/console/accept-invitation#token=${token}`);
    await page.getByRole('button', { name: 'Accept invitation' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(member.email);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Authentication code').fill(member.recoveryCodes[0]);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByRole('heading', { name: 'Invitation accepted' }).waitFor();
    await shot(page, 'invitation-existing-account');
    await page.getByRole('link', { name: 'Open the console' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    const merchantName = (name: string) => page.locator('.merchant-name', { hasText: name });
    await merchantName('Switcher Other').waitFor();
    // A direct merchant, a viewer: no sub-merchant context.
    expect(await page.getByRole('combobox', { name: 'Acting for' }).count()).toBe(0);

    // Back to the PSP with the merchant switcher.
    await page.getByRole('combobox', { name: 'Merchant' }).selectOption(psp.id);
    await merchantName('Switcher PSP').waitFor();
    const actingFor = page.getByRole('combobox', { name: 'Acting for' });
    await actingFor.waitFor();

    await navigationLink(page, 'Payments').click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await paymentRows(page, 4)).toEqual([own, ...ofAlpha, ofBeta].sort());

    // Acting for alpha: only its sessions, a banner says so, and a reload keeps it.
    await actingFor.locator('option', { hasText: '(alpha)' }).waitFor({ state: 'attached' });
    await actingFor.selectOption('alpha');
    const banner = page.getByRole('region', { name: 'Acting for' });
    await banner.getByText('Acting for sub-merchant alpha').waitFor();
    expect(await paymentRows(page, 2)).toEqual(ofAlpha);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot(page, 'payments-acting-for-sub-merchant');
    await page.reload();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await banner.waitFor();
    expect(await page.getByRole('combobox', { name: 'Acting for' }).inputValue()).toBe('alpha');
    expect(await paymentRows(page, 2)).toEqual(ofAlpha);

    // The Sub-merchants page lists both, and "Back to all" shows every session again.
    await navigationLink(page, 'Sub-merchants').click();
    await page.getByRole('heading', { name: 'Sub-merchants' }).waitFor();
    await page.getByRole('row', { name: /beta/ }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot(page, 'sub-merchants');
    // Creating one: it is listed here and offered under "Acting for".
    await page.getByLabel('Code').fill('gamma');
    await page.getByLabel('Name', { exact: true }).fill('Shop gamma');
    await page.getByRole('button', { name: 'Create sub-merchant' }).click();
    await page.getByRole('status').getByText('Sub-merchant gamma created.').waitFor();
    await page.getByRole('row', { name: /gamma/ }).waitFor();
    await actingFor.locator('option', { hasText: '(gamma)' }).waitFor({ state: 'attached' });
    const [created] = await api.dataSource.query(
      `SELECT name FROM sub_merchants WHERE merchant_id = $1 AND code = 'gamma'`,
      [psp.id],
    );
    expect(created).toEqual({ name: 'Shop gamma' });
    await banner.getByRole('button', { name: 'Back to all' }).click();
    await banner.waitFor({ state: 'detached' });
    await navigationLink(page, 'Payments').click();
    expect(await paymentRows(page, 4)).toEqual([own, ...ofAlpha, ofBeta].sort());

    // A second tab keeps its own choice: the first one's was for this tab only.
    await actingFor.selectOption('beta');
    expect(await paymentRows(page, 1)).toEqual([ofBeta]);
    const second = await openConsolePage(context);
    await second.page.goto(`${baseUrl}/console/payments`);
    await second.page.getByRole('heading', { name: 'Payments' }).waitFor();
    expect(await paymentRows(second.page, 4)).toEqual([own, ...ofAlpha, ofBeta].sort());
    expect(await second.page.getByRole('region', { name: 'Acting for' }).count()).toBe(0);

    expect(cspViolations).toEqual([]);
    expect(second.cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    expect(second.errors).toEqual([]);
    await context.close();
  });
});
