import {
  ConsoleRig,
  navigationLink,
  seriousAxeViolations,
  startConsoleRig,
} from '../support/console-browser-kit';
import { totpCode } from '../support/console-identity';
import { randomTronAddress } from '../support/payouts-api';
import { paidSession, postSessionRefund, RefundBody } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

/*
 * Refunds in the console (issue 25), in a real Chromium against the real API: the Refund form on
 * a payment's page (fresh authentication code) makes one refund and opens it; the Refunds list
 * shows it and filters; a refund not sent yet is canceled from its page. No CSP violation, no
 * serious axe finding on the new pages.
 */
describe('Console: refunds in Chromium', () => {
  let rig: ConsoleRig;
  let api: TestApi;
  let baseUrl: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    rig = await startConsoleRig();
    ({ api, baseUrl } = rig);
    merchant = await rig.createMerchant('Browser Refunds');
  });

  // The merchant's payouts still held are rejected.
  afterAll(() => rig?.close());

  it('refunds a payment from its page, shows the refund in the Refunds list, and cancels one not sent', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });
    const {
      member: owner,
      context,
      page,
      cspViolations,
      errors,
    } = await rig.signIn(merchant, 'owner');

    // The payment's page: no refund yet, and the Refund action.
    await navigationLink(page, 'Payments').click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await page
      .getByRole('row', { name: new RegExp(session.id) })
      .getByRole('link')
      .click();
    await page.getByRole('heading', { name: new RegExp(`Payment ${session.id}`) }).waitFor();
    await page.getByText('No refunds of this payment.').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();

    // The form: what was received, then amount, address, reason and the code.
    await page.getByRole('heading', { name: 'Refund payment' }).waitFor();
    await page.getByText('Received 40 USDT on TRON.', { exact: false }).waitFor();
    const toAddress = randomTronAddress();
    await page.getByLabel('Amount (optional)').fill('25');
    await page.getByLabel('Customer address (optional)').fill(toAddress);
    await page.getByLabel('Reason (optional)').fill('Customer changed their mind');
    await page.getByLabel('Authentication code').fill(totpCode(owner.secret, 1));
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create refund' }).click();

    // The refund's page: a real refund, amount held.
    await page.getByRole('heading', { name: /^Refund re_/ }).waitFor();
    await waitFor(
      async () => (await api.count('refunds', 'session_id = $1', [session.id])) === 1,
      30_000,
      'the refund created',
    );
    const [stored]: Array<{ id: string }> = await api.dataSource.query(
      `SELECT id FROM refunds WHERE session_id = $1`,
      [session.id],
    );
    expect(page.url()).toBe(`${baseUrl}/console/refunds/${stored.id}`);
    const { body: refund } = await api.get(`/v1/refunds/${stored.id}`, merchant).expect(200);
    expect(refund).toMatchObject({
      status: 'Pending',
      amount: '25',
      to_address: toAddress,
      reason: 'Customer changed their mind',
    });
    const details = page.locator('dl.details');
    await details.getByText(toAddress).waitFor();
    const text = (await details.textContent()) ?? '';
    expect(text).toContain('25 USDT');
    expect(text).toContain(`${refund.fee} USDT`);
    expect(text).toContain(`${refund.net_amount} USDT`);
    expect(text).toContain('Customer changed their mind');
    expect(await details.getByRole('link', { name: session.id }).count()).toBe(1);
    await page.locator('.events > li', { hasText: 'refund.created' }).waitFor();
    // Pending with the merchant's own address: cancelable while the worker has not taken it.
    expect(await page.getByRole('button', { name: 'Cancel refund' }).count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The Refunds list: the refund, its filters.
    await navigationLink(page, 'Refunds').click();
    await page.getByRole('heading', { name: 'Refunds' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(stored.id) });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'Pending',
      '25 USDT',
      'TRON',
      session.id,
      expect.any(String),
    ]);
    await page.getByLabel('Status').selectOption('Completed');
    await page.getByText('No refunds match.').waitFor();
    await page.getByLabel('Status').selectOption('Pending');
    await row.waitFor();
    await page.getByLabel('Payment').fill(session.id);
    await row.waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A refund waiting for the customer's address, canceled from its page: the hold comes back.
    const { body: waiting } = (await postSessionRefund(api, merchant, session.id, {
      amount: '10',
      reason: 'To cancel',
    }).expect(201)) as { body: RefundBody & { destination_url?: string | null } };
    expect(waiting.status).toBe('requires_destination');
    const { body: read } = await api.get(`/v1/refunds/${waiting.id}`, merchant).expect(200);
    await page.goto(`${baseUrl}/console/refunds/${waiting.id}`);
    await page.getByRole('heading', { name: new RegExp(`Refund ${waiting.id}`) }).waitFor();
    await details.getByText('Not given yet').waitFor();
    if (read.destination_url) await details.getByText(read.destination_url).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel refund' });
    await dialog.waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel refund' }).click();
    await page.getByRole('status').filter({ hasText: 'The refund is canceled.' }).waitFor();
    await details.getByText('Canceled').waitFor();
    const { body: canceled } = await api.get(`/v1/refunds/${waiting.id}`, merchant).expect(200);
    expect(canceled.status).toBe('Canceled');
    expect(await page.getByRole('button', { name: 'Cancel refund' }).count()).toBe(0);

    // Back on the payment: both refunds listed.
    await details.getByRole('link', { name: session.id }).click();
    await page.getByRole('heading', { name: new RegExp(`Payment ${session.id}`) }).waitFor();
    await page.getByRole('row', { name: new RegExp(waiting.id) }).waitFor();
    await page.getByRole('row', { name: new RegExp(stored.id) }).waitFor();

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a viewer the Refunds list but no Refund action, and a developer no Refunds at all', async () => {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '50',
      received: '50',
      status: 'Paid',
    });
    for (const [role, seesRefunds] of [
      ['viewer', true],
      ['developer', false],
    ] as const) {
      const { context, page, cspViolations } = await rig.signIn(merchant, role);
      expect([role, await navigationLink(page, 'Refunds').count()]).toEqual([
        role,
        seesRefunds ? 1 : 0,
      ]);
      await page.goto(`${baseUrl}/console/payments/${session.id}`);
      await page.getByRole('heading', { name: new RegExp(`Payment ${session.id}`) }).waitFor();
      await page.locator('dl.details').waitFor();
      expect([
        role,
        await page.getByRole('button', { name: 'Refund', exact: true }).count(),
      ]).toEqual([role, 0]);
      await page.goto(`${baseUrl}/console/payments/${session.id}/refund`);
      await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
      if (!seesRefunds) {
        await page.goto(`${baseUrl}/console/refunds`);
        await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
      }
      expect(cspViolations).toEqual([]);
      await context.close();
    }
  });

  it('offers no Refund on a payment that received nothing', async () => {
    const unpaid = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '30',
      received: '0',
      status: 'Pending',
    });
    const { context, page } = await rig.signIn(merchant, 'owner', 'refund-unpaid');
    await page.goto(`${baseUrl}/console/payments/${unpaid.id}`);
    await page.getByRole('heading', { name: new RegExp(`Payment ${unpaid.id}`) }).waitFor();
    await page.getByText('No refunds of this payment.').waitFor();
    expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    await context.close();
  });
});
