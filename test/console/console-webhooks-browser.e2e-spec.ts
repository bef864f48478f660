import type { INestApplicationContext } from '@nestjs/common';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { buildConsole } from '../support/console-build';
import {
  navigationLink,
  newConsoleContext,
  openConsolePage,
  seriousAxeViolations,
  signInThroughForm,
  startConsoleBrowser,
} from '../support/console-browser-kit';
import { signedInMember, totpCode } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startWebhookWorker } from '../support/webhook-worker';

// A build of the console, a browser and the worker's deliveries on a loaded machine.
jest.setTimeout(240_000);

/*
 * The Webhooks page (issue 25) in a real Chromium against the real API and the worker's real
 * delivery loop: a developer adds an endpoint (its signing secret shown once), sends a test event
 * and sees its delivery; edits and deletes it. Then the password reset pages: "Forgot password?"
 * and a reset link used with the authentication code. No CSP violation, no serious axe finding.
 */
describe('Console: webhook endpoints and password reset in Chromium', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let browser: Browser;
  let baseUrl: string;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    await buildConsole();
    restoreEnvironment = withEnvironment({
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    api = await TestApi.start();
    worker = await startWebhookWorker();
    ({ baseUrl, browser } = await startConsoleBrowser(api));
    merchant = await api.createMerchant({ name: 'Browser Webhooks' });
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    restoreEnvironment?.();
  });

  it('adds an endpoint, sends a test event and shows its delivery; edits and deletes it', async () => {
    const developer = await signedInMember(api, merchant, 'developer');
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, developer.email, developer.recoveryCodes[0]);

    await navigationLink(page, 'Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    const url = `${receiver.url}/console-hooks`;
    await form.getByLabel('Endpoint URL').fill(url);
    await form.getByLabel('Description (optional)').fill('From the browser');
    await form.getByLabel('Only the selected types').check();
    await form.getByLabel('payout.completed').check();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const saved = page.getByRole('dialog', { name: 'Save your signing secret' });
    await saved.waitFor();
    const secret = await saved.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await saved.getByRole('button', { name: 'Copy' }).click();
    await saved.locator('[aria-live="polite"]').filter({ hasText: /Cop/ }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await saved.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: new RegExp(url) }).waitFor();
    const [endpoint]: Array<{ id: string; event_types: string[] }> = await api.dataSource.query(
      `SELECT id, event_types FROM webhook_endpoints WHERE merchant_id = $1`,
      [merchant.id],
    );
    expect(endpoint.event_types).toEqual(['payout.completed']);

    // The test event: delivered by the worker, signed with the secret the dialog showed.
    await page.getByRole('button', { name: `Send test event to ${url}` }).click();
    const test = page.getByRole('dialog', { name: 'Test event' });
    await test.getByText(/webhook_endpoint\.test event \(evt_/).waitFor();
    await test.getByText(`To ${url}: Succeeded, 1 attempts`).waitFor({ timeout: 60_000 });
    await waitFor(async () => receiver.received.length === 1, 30_000, 'the test webhook');
    const [webhook] = receiver.received;
    expect(JSON.parse(webhook.body)).toMatchObject({
      type: 'webhook_endpoint.test',
      data: { test: true, object: { id: endpoint.id } },
    });
    expect(() =>
      new Webhook(secret).verify(webhook.body, {
        'webhook-id': String(webhook.headers['webhook-id']),
        'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
        'webhook-signature': String(webhook.headers['webhook-signature']),
      }),
    ).not.toThrow();
    await test.getByRole('cell', { name: '200' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await test.getByRole('button', { name: 'Close' }).click();

    // Edit: every event type, and disabled.
    await page.getByRole('button', { name: `Edit ${url}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit webhook endpoint' });
    await edit.getByLabel('All events, new types included').check();
    await edit.getByLabel('Enabled: the endpoint receives events').uncheck();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Disabled (disabled_by_merchant)').waitFor();
    await page.getByRole('cell', { name: 'All events' }).waitFor();
    expect(await page.getByRole('button', { name: `Send test event to ${url}` }).isDisabled()).toBe(
      true,
    );

    await page.getByRole('button', { name: `Delete ${url}` }).click();
    const remove = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await remove.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();
    expect(
      await api.count('webhook_endpoints', 'merchant_id = $1 AND deleted_at IS NULL', [
        merchant.id,
      ]),
    ).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Forgot password?" explains who issues a link; the link and the code set a new password', async () => {
    const owner = await signedInMember(api, merchant, 'owner');
    const viewer = await signedInMember(api, merchant, 'viewer');
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);

    await page.goto(`${baseUrl}/console/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByText(/Ask an owner or admin of your team/).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The owner creates the viewer's link on the Team page.
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'Team').click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page
      .getByRole('button', { name: `Create a password reset link for ${viewer.email}` })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Password reset link' });
    await dialog.getByRole('button', { name: 'Create reset link' }).click();
    const link = await dialog.getByLabel('Password reset link').inputValue();
    expect(link).toMatch(/\/console\/reset-password#token=/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The viewer, in a browser of their own.
    const viewerContext = await newConsoleContext(browser);
    const viewerPage = await openConsolePage(viewerContext);
    const reset = viewerPage.page;
    await reset.goto(link.replace(/^https?:\/\/[^/]+/, baseUrl));
    await reset.getByText(`For ${viewer.email}.`).waitFor();
    await reset.getByLabel('New password').fill('a new passphrase from the browser');
    await reset.getByLabel('Authentication code').fill('000000');
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await reset.getByText(/Incorrect or already used code/).waitFor();
    expect(await seriousAxeViolations(reset)).toEqual([]);
    await reset.getByLabel('Authentication code').fill(totpCode(viewer.secret, 1));
    await reset.getByRole('button', { name: 'Set new password' }).click();
    await reset.getByText(/Your password is changed/).waitFor();
    expect(await seriousAxeViolations(reset)).toEqual([]);
    expect(
      await api.count('console_sessions', 'user_id = $1 AND revoked_at IS NULL', [viewer.userId]),
    ).toBe(0);

    expect(cspViolations).toEqual([]);
    expect(viewerPage.cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    // The one error logged is the wrong code's answer, which the page showed.
    expect(viewerPage.errors).toEqual([
      'Failed to load resource: the server responded with a status of 401 (Unauthorized)',
    ]);
    await viewerContext.close();
    await context.close();
  });
});
