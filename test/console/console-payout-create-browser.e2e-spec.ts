import {
  ConsoleRig,
  navigationLink,
  seriousAxeViolations,
  startConsoleRig,
} from '../support/console-browser-kit';
import { totpCode } from '../support/console-identity';
import { randomTronAddress } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/*
 * The console's Create payout form (issue 25) in a real Chromium against the real API: a wrong
 * authentication code is shown next to its field, and the same form (same idempotency key) then
 * creates exactly one payout with the right code and opens it.
 */
describe('Console: create a payout in Chromium', () => {
  let rig: ConsoleRig;
  let api: TestApi;
  let baseUrl: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    rig = await startConsoleRig();
    ({ api, baseUrl } = rig);
    merchant = await rig.createPayoutMerchant('Browser Payouts', '300');
  });

  // The merchant's payouts still held are rejected.
  afterAll(() => rig?.close());

  it('creates one payout through the form and opens it; a wrong code is shown by its field', async () => {
    const {
      member: owner,
      context,
      page,
      cspViolations,
      errors,
    } = await rig.signIn(merchant, 'owner');

    await navigationLink(page, 'Payouts').click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await page.getByRole('button', { name: 'Create payout' }).click();
    await page.getByRole('heading', { name: 'Create payout' }).waitFor();
    const toAddress = randomTronAddress();
    await page.getByLabel('Amount').fill('20.000001');
    await page.getByLabel('Currency').selectOption('USDT');
    await page.getByLabel('Network').selectOption('TRON');
    await page.getByLabel('Destination address').fill(toAddress);
    await page.getByLabel('Description').fill('From the console');
    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, -20));
    await page.getByRole('button', { name: 'Create payout' }).click();
    // Shown inside the code's own label: the field the API named in `param`.
    const codeError = page.locator('label', { hasText: 'Authentication code' }).getByRole('alert');
    await codeError.waitFor();
    expect(await codeError.textContent()).toBeTruthy();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await api.count('payouts', 'merchant_id = $1', [merchant.id])).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    await page.getByRole('button', { name: 'Create payout' }).click();
    await page.getByRole('heading', { name: /^Payout po_/ }).waitFor();
    await waitFor(
      async () => (await api.count('payouts', 'merchant_id = $1', [merchant.id])) === 1,
      30_000,
      'the payout created',
    );
    const [payout]: Array<{ id: string; amount: string; to_address: string }> =
      await api.dataSource.query(
        `SELECT id, amount::text AS amount, to_address FROM payouts WHERE merchant_id = $1`,
        [merchant.id],
      );
    expect(page.url()).toBe(`${baseUrl}/console/payouts/${payout.id}`);
    expect(payout.to_address).toBe(toAddress);
    expect(payout.amount).toMatch(/^20\.000001/);
    expect(cspViolations).toEqual([]);
    // The one error logged is the wrong code's answer, which the form showed.
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    await context.close();
  });
});
