import { Browser } from 'playwright-core';
import { MerchantsService } from '@app/auth';
import { inviteFromCli } from '../../libs/console/src/invitations/cli-invitations';
import {
  acceptInvitationInBrowser,
  ConsoleWebhookRig,
  navigationLink,
  newConsoleContext,
  openConsolePage,
  screenshot as shot,
  seriousAxeViolations,
  signInThroughForm,
  startConsoleWebhookRig,
} from '../support/console-browser-kit';
import { signedInMember, uniqueEmail } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, PayoutEventSource } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';

/*
 * The console's data pages (issue 25) in a real Chromium against the real API: records created
 * through the API with the merchant's key, then found, filtered, paged and opened in the console,
 * each page under the strict CSP and without a serious axe finding; the navigation follows the
 * member's role.
 */
describe('Console data pages in Chromium', () => {
  let rig: ConsoleWebhookRig;
  let api: TestApi;
  let target: WebhookReceiver;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    rig = await startConsoleWebhookRig();
    ({ api, target, browser, baseUrl } = rig);
  });

  // Every merchant made here: their payouts still held are rejected at the end.
  afterAll(() => rig?.close());

  const createMerchant = (name: string): Promise<TestMerchant> => rig.createMerchant(name);

  const createSession = async (merchant: TestMerchant, reference: string) => {
    for (;;) {
      const response = await api.post('/v1/checkout/sessions', merchant, {
        pricing_amount: '12.5',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
        client_reference_id: reference,
      });
      // Over the per-second write limit: the next second has room.
      if (response.status === 429) continue;
      expect(response.status).toBe(201);
      return response.body as { id: string; pay_address: string; amount: string };
    }
  };

  it('lists, filters, pages and opens checkout sessions', async () => {
    const merchant = await createMerchant('Pages Payments');
    const owner = await signedInMember(api, merchant, 'owner');
    // 101 sessions: one more than a page.
    const sessions = [];
    for (let index = 0; index < 101; index += 1) {
      sessions.push(await createSession(merchant, `order-${index}`));
    }
    const newest = sessions[100];
    const oldest = sessions[0];

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'Payments').click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await page.getByRole('row', { name: new RegExp(newest.id) }).waitFor();
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(100);
    const newestRow = page.getByRole('row', { name: new RegExp(newest.id) });
    expect(await newestRow.getByRole('cell').allTextContents()).toEqual([
      'Pending',
      `${newest.amount} USDT`,
      '0',
      'ETHEREUM',
      'order-100',
      expect.any(String),
    ]);
    expect(await page.getByRole('row', { name: new RegExp(oldest.id) }).count()).toBe(0);
    await shot(page, 'pages-1-payments');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The next page (Link next) holds the oldest alone; back to the first.
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('row', { name: new RegExp(oldest.id) }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await newestRow.waitFor();

    // Filters: no session is Expired; a range ending yesterday holds none; today's holds them.
    await page.getByLabel('Status').selectOption('Expired');
    await page.getByText('No checkout sessions match.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await newestRow.waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Created until').fill(yesterday);
    await page.getByText('No checkout sessions match.').waitFor();
    await page.getByLabel('Created until').fill(today);
    await page.getByLabel('Created from').fill(today);
    await newestRow.waitFor();

    // The detail: amounts and the pay address as the API gave them.
    await newestRow.getByRole('link').click();
    await page.getByRole('heading', { name: new RegExp(`Payment ${newest.id}`) }).waitFor();
    const details = page.locator('dl.details');
    await details.getByText(newest.pay_address).waitFor();
    expect(await details.textContent()).toContain(`${newest.amount} USDT`);
    expect(await details.textContent()).toContain('order-100');
    await page.getByText('No transfer seen yet.').waitFor();
    await page.getByText('No events yet.').waitFor();
    await shot(page, 'pages-2-payment');
    expect(await seriousAxeViolations(page)).toEqual([]);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows payouts with their review, events, every delivery attempt and a resend', async () => {
    const merchant = await createMerchant('Pages Payouts');
    const owner = await signedInMember(api, merchant, 'owner');
    target.replyAlways({ status: 200, body: 'ok' });
    await api.post(ENDPOINTS, merchant, { url: `${target.url}/hooks` }).expect(201);
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    const payoutId = await source.createPayout(merchant);
    await source.reject(payoutId);
    const { body: payout } = await api.get(`/v1/payouts/${payoutId}`, merchant).expect(200);
    expect(payout.status).toBe('Rejected');
    // Both events delivered once before the page looks.
    await waitFor(
      async () => target.received.filter((hook) => hook.path === '/hooks').length >= 2,
      30_000,
      'the payout events delivered',
    );

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);

    // Balances: the credit less the rejected payout (given back), nothing held.
    const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
    await navigationLink(page, 'Balances').click();
    await page.getByRole('heading', { name: 'Balances' }).waitFor();
    const balanceRow = page.getByRole('row', { name: /TRON/ });
    await balanceRow.waitFor();
    expect(await balanceRow.getByRole('cell').allTextContents()).toEqual([
      'TRON',
      'USDT',
      'Own',
      '1,000',
      '0',
    ]);
    expect([balances[0].available, balances[0].held]).toEqual(['1000', '0']);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await navigationLink(page, 'Payouts').click();
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(payoutId) });
    await row.waitFor();
    expect((await row.getByRole('cell').allTextContents()).slice(0, 3)).toEqual([
      'Rejected',
      `${payout.amount} USDT`,
      'TRON',
    ]);
    await page.getByLabel('Status').selectOption('Completed');
    await page.getByText('No payouts match.').waitFor();
    await page.getByLabel('Status').selectOption('Rejected');
    await row.waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: new RegExp(`Payout ${payoutId}`) }).waitFor();
    const details = page.locator('dl.details');
    await details.getByText(payout.to_address).waitFor();
    const text = (await details.textContent()) ?? '';
    expect(text).toContain(`${payout.fee} USDT`);
    expect(text).toContain(`${payout.net_amount} USDT`);
    expect(text).toContain('Reviewed on');

    // Its events, newest first; the deliveries of payout.created with the attempt made.
    const created = page.locator('.events > li', { hasText: 'payout.created' });
    await created.locator('summary').click();
    const attempts = created.getByRole('table', { name: new RegExp(`${target.url}/hooks`) });
    await attempts.waitFor();
    expect(await attempts.getByRole('caption').textContent()).toMatch(/Succeeded, 1 attempts/);
    expect(await attempts.locator('tbody tr').first().getByRole('cell').nth(1).textContent()).toBe(
      '200',
    );
    await shot(page, 'pages-3-payout');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Resend: a new attempt, seen in the table once the worker made it.
    await created.getByRole('button', { name: /^Resend event/ }).click();
    await created.getByRole('status').waitFor();
    const { body: events } = await api
      .get(`/v1/events?object_id=${payoutId}&type=payout.created`, merchant)
      .expect(200);
    expect(events).toHaveLength(1);
    await waitFor(
      async () => target.forEvent(events[0].id).length === 2,
      30_000,
      'the resent delivery received',
    );
    await page.reload();
    await created.locator('summary').click();
    await waitFor(
      async () => (await attempts.locator('tbody tr').count()) === 2,
      30_000,
      'the resent attempt listed',
    );

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows webhook endpoints, events with deliveries, and the request log with its filters', async () => {
    const merchant = await createMerchant('Pages Developers');
    const owner = await signedInMember(api, merchant, 'owner');
    target.replyAlways({ status: 200, body: 'ok' });
    await api
      .post(ENDPOINTS, merchant, { url: `${target.url}/dev-hooks`, description: 'Order service' })
      .expect(201);
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    const payoutId = await source.createPayout(merchant);
    const missing = await api.get('/v1/payouts/po_doesnotexist', merchant).expect(404);
    const missingRequestId = missing.headers['request-id'] as string;
    expect(missingRequestId).toBeTruthy();
    // The request log is written in batches: wait until the 404 is there.
    await waitFor(
      async () => {
        const { body } = await owner.agent.get('/console/api/request-log?status=404').expect(200);
        return (body as Array<{ request_id: string }>).some(
          (entry) => entry.request_id === missingRequestId,
        );
      },
      30_000,
      'the 404 in the request log',
    );

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);

    await navigationLink(page, 'Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const endpointRow = page.getByRole('row', { name: new RegExp(`${target.url}/dev-hooks`) });
    await endpointRow.waitFor();
    expect(await endpointRow.getByRole('rowheader').textContent()).toContain('Order service');
    expect((await endpointRow.getByRole('cell').allTextContents()).slice(0, 2)).toEqual([
      'Enabled',
      'All events',
    ]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await navigationLink(page, 'Events').click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    const created = page.locator('.events > li', { hasText: 'payout.created' });
    await created.waitFor();
    expect(await created.textContent()).not.toContain('payout.rejected');
    await page.getByLabel('Type').selectOption('payout.rejected');
    await page.getByText('No events match.').waitFor();
    await page.getByLabel('Type').selectOption('payout.created');
    await page.getByLabel('Object id').fill(payoutId);
    await created.locator('summary').click();
    const attempts = created.getByRole('table', { name: new RegExp(`${target.url}/dev-hooks`) });
    await attempts.waitFor();
    await created.getByRole('button', { name: /^Resend event/ }).waitFor();
    await shot(page, 'pages-4-events');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await navigationLink(page, 'Request log').click();
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    const missingRow = page.getByRole('row', { name: new RegExp(missingRequestId) });
    await missingRow.waitFor();
    const cells = await missingRow.getByRole('cell').allTextContents();
    expect(cells.slice(1, 4)).toEqual(['GET', '/v1/payouts/po_doesnotexist', '404']);
    expect(cells[4]).toMatch(/^sk_test_/);
    expect(cells[5]).toBe(missingRequestId);
    await page.getByLabel('Status code').fill('201');
    await missingRow.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /POST/ }).first().waitFor();
    await page.getByLabel('Status code').fill('404');
    await page.getByLabel('Method').selectOption('POST');
    await page.getByText('No requests match.').waitFor();
    await page.getByLabel('Method').selectOption('GET');
    await missingRow.waitFor();
    await shot(page, 'pages-5-request-log');
    expect(await seriousAxeViolations(page)).toEqual([]);

    expect(cspViolations).toEqual([]);
    // The 404 the page never asked for is the API's; the browser logged no error of its own.
    expect(errors).toEqual([]);
    await context.close();
  });

  it("lists the member's sessions and signs another out; shows the activity log", async () => {
    const merchant = await createMerchant('Pages Security');
    // Signed in twice: the agent here, the browser below.
    const owner = await signedInMember(api, merchant, 'owner');
    await owner.agent.get('/console/api/session').expect(200);

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'Security').click();
    await page.getByRole('heading', { name: 'Security' }).waitFor();
    const rows = page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === 2, 30_000, 'both sessions listed');
    const current = page.getByRole('row', { name: /This session/ });
    expect(await current.getByRole('button').count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: /^Sign out of the session signed in on/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out of this session' });
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitFor(async () => (await rows.count()) === 1, 30_000, 'one session left');
    await owner.agent.get('/console/api/session').expect(401);
    await shot(page, 'pages-6-security');

    // Activity: the sign-out just made, by the owner, newest first.
    await navigationLink(page, 'Activity').click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    const first = page.locator('tbody tr').first();
    await first.waitFor();
    const cells = await first.getByRole('cell').allTextContents();
    expect(cells.slice(1, 3)).toEqual(['session.revoked', owner.email]);
    await shot(page, 'pages-7-activity');
    expect(await seriousAxeViolations(page)).toEqual([]);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows each role the data pages it may read, and Resend only to those who may', async () => {
    const merchant = await createMerchant('Pages Roles');
    target.replyAlways({ status: 200, body: 'ok' });
    await api.post(ENDPOINTS, merchant, { url: `${target.url}/role-hooks` }).expect(201);
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    await source.createPayout(merchant);
    const pages = [
      'Payments',
      'Payouts',
      'Webhooks',
      'Events',
      'Request log',
      'Security',
      'Activity',
    ] as const;
    const expectations = [
      {
        role: 'viewer',
        shown: ['Payments', 'Payouts', 'Webhooks', 'Events', 'Security'],
        resend: false,
      },
      {
        role: 'support',
        shown: ['Payments', 'Payouts', 'Webhooks', 'Events', 'Security'],
        resend: true,
      },
      {
        role: 'developer',
        shown: ['Payments', 'Webhooks', 'Events', 'Request log', 'Security'],
        resend: true,
      },
    ] as const;
    for (const { role, shown, resend } of expectations) {
      const member = await signedInMember(api, merchant, role);
      const context = await newConsoleContext(browser);
      const { page, cspViolations } = await openConsolePage(context);
      await signInThroughForm(page, baseUrl, member.email, member.recoveryCodes[0]);
      for (const name of pages) {
        expect([role, name, await navigationLink(page, name).count()]).toEqual([
          role,
          name,
          (shown as readonly string[]).includes(name) ? 1 : 0,
        ]);
      }
      if (!(shown as readonly string[]).includes('Request log')) {
        await page.goto(`${baseUrl}/console/developers/request-log`);
        await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
      }
      if (!(shown as readonly string[]).includes('Payouts')) {
        await page.goto(`${baseUrl}/console/payouts`);
        await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
      }
      // The event's deliveries, with Resend or without.
      await page.goto(`${baseUrl}/console/developers/events`);
      const created = page.locator('.events > li', { hasText: 'payout.created' });
      await created.locator('summary').click();
      await created.getByRole('table', { name: new RegExp(`${target.url}/role-hooks`) }).waitFor();
      expect([role, await created.getByRole('button', { name: /^Resend event/ }).count()]).toEqual([
        role,
        resend ? 1 : 0,
      ]);
      expect(cspViolations).toEqual([]);
      await context.close();
    }
  });

  it('runs the operator area: review queue decisions, merchants and keys, view as merchant with its banner', async () => {
    const merchant = await createMerchant('Pages Ops Shop');
    // Every first payout to a new address waits for an operator.
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, null, true);
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    const toApprove = await source.createPayout(merchant);
    const toReject = await source.createPayout(merchant);
    for (const id of [toApprove, toReject]) {
      const { body } = await api.get(`/v1/payouts/${id}`, merchant).expect(200);
      expect(body.pending_reason).toMatch(/^review_/);
    }

    // An admin operator, invited as ops:invite does, accepts in the browser at /ops.
    const email = uniqueEmail('pages-ops-admin');
    const invitation = await inviteFromCli(
      api.dataSource,
      { publicUrl: baseUrl },
      { realm: 'operator', merchantId: null, email, role: null, operatorRole: 'admin' },
    );
    expect(invitation.invitation_url).toMatch(/\/ops\/accept-invitation#token=/);
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await acceptInvitationInBrowser(page, invitation.invitation_url);

    // The review queue: both payouts, with Approve and Reject for an admin.
    await page.getByRole('heading', { name: 'Payout reviews' }).waitFor();
    const approveRow = page.getByRole('row', { name: new RegExp(toApprove) });
    const rejectRow = page.getByRole('row', { name: new RegExp(toReject) });
    await approveRow.waitFor();
    expect(await approveRow.getByRole('cell').nth(0).textContent()).toBe('Pages Ops Shop');
    await shot(page, 'pages-8-ops-reviews');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: `Approve payout ${toApprove}` }).click();
    await approveRow.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Reject payout ${toReject}` }).click();
    const rejectDialog = page.getByRole('dialog', { name: 'Reject payout' });
    await rejectDialog.getByLabel('Reason').fill('Destination flagged by compliance');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await rejectDialog.getByRole('button', { name: 'Reject' }).click();
    await rejectDialog.waitFor({ state: 'detached' });
    await rejectRow.waitFor({ state: 'detached' });
    const approved = (await api.get(`/v1/payouts/${toApprove}`, merchant).expect(200)).body;
    expect(approved.reviewed_by).toBe(email.toLowerCase());
    const rejected = (await api.get(`/v1/payouts/${toReject}`, merchant).expect(200)).body;
    expect(rejected.status).toBe('Rejected');
    expect(rejected.error_reason).toContain('Destination flagged by compliance');

    // The merchant console without a view: a page saying so and leading back, not an empty frame.
    await page.goto(`${baseUrl}/console/`);
    await page.getByRole('heading', { name: 'You are signed in as an operator' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Open the operator area' }).click();

    // Merchants: the list, then this merchant's keys (hints only).
    await page.getByRole('heading', { name: 'Merchants' }).waitFor();
    await navigationLink(page, 'Merchants').click();
    await page.getByRole('heading', { name: 'Merchants' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.locator('tbody tr').count()).toBeLessThanOrEqual(100);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.goto(`${baseUrl}/ops/merchants/${merchant.id}`);
    await page.getByRole('heading', { name: 'Pages Ops Shop' }).waitFor();
    const keyRow = page.getByRole('row', { name: /Unnamed key/ });
    await keyRow.waitFor();
    expect(await keyRow.getByRole('cell').nth(0).textContent()).toMatch(/^sk_test_/);
    expect(await page.locator('body').textContent()).not.toContain(merchant.apiKey);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // View as merchant: a reason and minutes, then the merchant console with the banner.
    await page.getByRole('button', { name: 'View as merchant' }).click();
    const viewDialog = page.getByRole('dialog', { name: 'View as Pages Ops Shop' });
    await viewDialog
      .getByLabel('Reason (ticket and a sentence, 10 characters at least)')
      .fill('TICKET-42 payout missing');
    await viewDialog.getByLabel('Minutes (1 to 60)').fill('5');
    await viewDialog.getByRole('button', { name: 'Start viewing' }).click();
    const banner = page.getByRole('region', { name: 'Viewing as merchant' });
    await banner.waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/console\/?$/);
    expect(await banner.textContent()).toContain(email.toLowerCase());
    expect(await banner.textContent()).toContain('TICKET-42 payout missing');
    expect(await page.locator('.merchant-name').textContent()).toBe('Pages Ops Shop');
    await navigationLink(page, 'Payouts').click();
    await page.getByRole('row', { name: new RegExp(toReject) }).waitFor();
    // A viewer's menu: no keys, team, request log, nor sessions to end.
    for (const hidden of ['API keys', 'Team', 'Request log', 'Security']) {
      expect([hidden, await navigationLink(page, hidden).count()]).toEqual([hidden, 0]);
    }
    await shot(page, 'pages-9-view-as');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // End view: back in /ops, and the session answers as the operator again.
    await banner.getByRole('button', { name: 'End view' }).click();
    await page.getByRole('heading', { name: 'Merchants' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ops/merchants');
    const session = await page.evaluate<{ view_as: unknown }>(
      "fetch('/ops/api/session', { credentials: 'same-origin' }).then((r) => r.json())",
    );
    expect(session.view_as).toBeNull();

    // Revoke key (an admin's action): the key stops working, in the merchant's log and ours.
    await api.get('/v1/balances', merchant).expect(200);
    await page.goto(`${baseUrl}/ops/merchants/${merchant.id}`);
    await page.getByRole('heading', { name: 'Pages Ops Shop' }).waitFor();
    await keyRow.waitFor();
    await page.getByRole('button', { name: 'Revoke key Unnamed key' }).click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke key' });
    expect(await revokeDialog.textContent()).toContain('Pages Ops Shop');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
    await revokeDialog.waitFor({ state: 'detached' });
    await keyRow.getByText(/^Revoked on /).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke key Unnamed key' }).count()).toBe(0);
    await api.get('/v1/balances', merchant).expect(401);
    const revocations: Array<{ merchant_id: string | null }> = await api.dataSource.query(
      `SELECT merchant_id FROM console_audit_log
        WHERE action = 'api_key.revoked' AND target_id = $1 ORDER BY merchant_id NULLS FIRST`,
      [merchant.apiKeyId],
    );
    expect(revocations).toEqual([{ merchant_id: null }, { merchant_id: merchant.id }]);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
