import { Webhook } from 'standardwebhooks';
import {
  ConsoleWebhookRig,
  navigationLink,
  newConsoleContext,
  openConsolePage,
  screenshot,
  seriousAxeViolations,
  signInThroughForm,
  startConsoleWebhookRig,
} from '../support/console-browser-kit';
import { signedInMember } from '../support/console-identity';
import { TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ReceivedWebhook } from '../support/webhook-receiver';

// A build of the console, a browser and the worker's deliveries on a loaded machine.
jest.setTimeout(240_000);

const ENDPOINTS = '/v1/webhook-endpoints';

/** Whether the delivery's Standard Webhooks signature verifies with `secret`. */
function verifiesWith(secret: string, webhook: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(webhook.body, {
      'webhook-id': String(webhook.headers['webhook-id']),
      'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
      'webhook-signature': String(webhook.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/*
 * Issue 25's management actions in a real Chromium against the real API and the worker's real
 * deliveries: a developer rotates an endpoint's signing secret (the new one shown once, with what
 * became of the previous one) and a delivery signed with it verifies at a local receiver;
 * redelivers a delivery that failed for good; an owner of a PSP edits, disables and enables a
 * sub-merchant. Each change is in the audit log; no CSP violation, no serious axe finding.
 */
describe('Console: rotate a secret, redeliver, manage sub-merchants in Chromium', () => {
  let rig: ConsoleWebhookRig;

  beforeAll(async () => {
    rig = await startConsoleWebhookRig();
  });

  afterAll(async () => {
    await rig?.close();
  });

  const auditActions = async (userId: string) =>
    (
      await rig.api.dataSource.query<Array<{ action: string; target_id: string | null }>>(
        `SELECT action, target_id FROM console_audit_log
          WHERE actor_id = $1 AND action LIKE 'api.%' ORDER BY created_at, id`,
        [userId],
      )
    ).map((entry) => `${entry.action} ${entry.target_id ?? ''}`.trim());

  /** A test event sent with the merchant's key; the first webhook received for it. */
  async function deliveredTestEvent(
    merchant: TestMerchant,
    endpointId: string,
  ): Promise<ReceivedWebhook> {
    const { body: event } = await rig.api
      .post(`${ENDPOINTS}/${endpointId}/test`, merchant, {})
      .expect(202);
    await waitFor(
      async () => rig.target.forEvent(event.id as string).length > 0,
      60_000,
      'the test webhook',
    );
    return rig.target.forEvent(event.id as string)[0];
  }

  it('rotates the secret (the old one signing for its grace period) and redelivers failed events', async () => {
    const { api, target } = rig;
    const merchant = await rig.createMerchant('Manage Webhooks');
    const url = `${target.url}/manage-hooks`;
    const { body: created } = await api.post(ENDPOINTS, merchant, { url }).expect(201);
    const endpointId = created.id as string;
    const firstSecret = created.secret as string;
    const developer = await signedInMember(api, merchant, 'developer');
    const context = await newConsoleContext(rig.browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, rig.baseUrl, developer.email, developer.recoveryCodes[0]);
    await navigationLink(page, 'Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();

    // Rotate, the previous secret signing beside the new one for an hour.
    await page.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    const grace = rotate.getByLabel('The previous secret keeps signing beside the new one');
    expect(await grace.inputValue()).toBe('24');
    await grace.selectOption({ label: 'For 1 hour' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const saved = page.getByRole('dialog', { name: 'Save your signing secret' });
    await saved.waitFor();
    const secondSecret = await saved.getByLabel('Signing secret').inputValue();
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    await saved.getByText(/The previous secret also signs every delivery until/).waitFor();
    await saved.getByRole('button', { name: 'Copy' }).click();
    await saved.locator('[aria-live="polite"]').filter({ hasText: /Cop/ }).waitFor();
    await screenshot(page, 'manage-1-rotated-secret');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await saved.getByRole('button', { name: 'Done' }).click();
    await saved.waitFor({ state: 'detached' });
    const [{ grace_hours }]: Array<{ grace_hours: number }> = await api.dataSource.query(
      `SELECT round(extract(epoch FROM previous_secret_expires_at - now()) / 3600)::int
              AS grace_hours
         FROM webhook_endpoints WHERE id = $1`,
      [endpointId],
    );
    expect(grace_hours).toBe(1);

    // A delivery now verifies with the new secret, and with the previous one for the hour.
    const duringGrace = await deliveredTestEvent(merchant, endpointId);
    expect(verifiesWith(secondSecret, duringGrace)).toBe(true);
    expect(verifiesWith(firstSecret, duringGrace)).toBe(true);

    // Rotate again, the previous secret stopping at once: only the newest verifies.
    await page.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await rotate.getByLabel('The previous secret keeps signing beside the new one').selectOption({
      label: 'No: it stops now',
    });
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await saved.getByText(/The previous secret no longer signs deliveries/).waitFor();
    const thirdSecret = await saved.getByLabel('Signing secret').inputValue();
    await saved.getByRole('button', { name: 'Done' }).click();
    const afterGrace = await deliveredTestEvent(merchant, endpointId);
    expect(verifiesWith(thirdSecret, afterGrace)).toBe(true);
    expect(verifiesWith(secondSecret, afterGrace)).toBe(false);

    // A delivery whose retries ran out while the receiver was down...
    target.replyNext({ status: 500, body: 'down' });
    const { body: failing } = await api
      .post(`${ENDPOINTS}/${endpointId}/test`, merchant, {})
      .expect(202);
    const failedEvent = failing.id as string;
    const attempts = async () =>
      (
        await api.dataSource.query<Array<{ status: string; attempt_count: number }>>(
          `SELECT status, attempt_count FROM webhook_deliveries
            WHERE event_id = $1 AND endpoint_id = $2`,
          [failedEvent, endpointId],
        )
      )[0];
    await waitFor(async () => (await attempts())?.attempt_count === 1, 60_000, 'first attempt');
    await api.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'Failed', next_attempt_at = NULL
        WHERE event_id = $1 AND endpoint_id = $2`,
      [failedEvent, endpointId],
    );

    // ...is redelivered from the page: one queued, then delivered and signed with the new secret.
    await page.getByRole('button', { name: `Redeliver failed events to ${url}` }).click();
    const redeliver = page.getByRole('dialog', { name: 'Redeliver failed events' });
    expect(await redeliver.getByLabel('Events created since').inputValue()).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d$/,
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await redeliver.getByRole('button', { name: 'Redeliver' }).click();
    await redeliver
      .getByRole('status')
      .filter({ hasText: 'Failed deliveries queued for another attempt: 1.' })
      .waitFor();
    await screenshot(page, 'manage-2-redelivered');
    await waitFor(
      async () => (await attempts())?.status === 'Succeeded',
      60_000,
      'the redelivery succeeded',
    );
    const redelivered = target.forEvent(failedEvent);
    expect(redelivered).toHaveLength(2);
    expect(verifiesWith(thirdSecret, redelivered[1])).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await redeliver.getByRole('button', { name: 'Close' }).click();

    // Audited as every console change through /v1 is; the secrets are nowhere in the log.
    const actions = await auditActions(developer.userId);
    expect(actions).toEqual([
      `api.POST /v1/webhook-endpoints/:id/rotate-secret ${endpointId}`,
      `api.POST /v1/webhook-endpoints/:id/rotate-secret ${endpointId}`,
      `api.POST /v1/webhook-endpoints/:id/recover ${endpointId}`,
    ]);
    const [{ log }]: Array<{ log: string }> = await api.dataSource.query(
      `SELECT coalesce(string_agg(l::text, ''), '') AS log FROM console_audit_log l
        WHERE merchant_id = $1`,
      [merchant.id],
    );
    for (const secret of [secondSecret, thirdSecret]) expect(log).not.toContain(secret);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('offers Redeliver to support as the API does, Rotate secret only to writers, neither to a viewer', async () => {
    const { api, target } = rig;
    const merchant = await rig.createMerchant('Manage Webhook Roles');
    const url = `${target.url}/role-hooks`;
    await api.post(ENDPOINTS, merchant, { url }).expect(201);
    for (const [role, redeliver] of [
      ['support', 1],
      ['viewer', 0],
    ] as const) {
      const member = await signedInMember(api, merchant, role);
      const context = await newConsoleContext(rig.browser);
      const { page, cspViolations, errors } = await openConsolePage(context);
      await signInThroughForm(page, rig.baseUrl, member.email, member.recoveryCodes[0]);
      await navigationLink(page, 'Webhooks').click();
      await page.getByRole('row', { name: new RegExp(url) }).waitFor();
      expect(
        await page.getByRole('button', { name: `Redeliver failed events to ${url}` }).count(),
      ).toBe(redeliver);
      expect(await page.getByRole('button', { name: `Rotate secret of ${url}` }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
      expect(cspViolations).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('edits, disables and enables a sub-merchant', async () => {
    const { api } = rig;
    const psp = await api.createMerchant({ name: 'Manage Sub-merchants PSP', kind: 'psp' });
    await api
      .post('/v1/sub-merchants', psp, { code: 'manage-1', name: 'Manage One', status: 'active' })
      .expect(201);
    const owner = await signedInMember(api, psp, 'owner');
    const context = await newConsoleContext(rig.browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, rig.baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'Sub-merchants').click();
    await page.getByRole('heading', { name: 'Sub-merchants' }).waitFor();
    const row = page.getByRole('row', { name: /manage-1/ });
    await row.waitFor();

    await page.getByRole('button', { name: 'Edit manage-1' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit sub-merchant manage-1' });
    expect(await edit.getByLabel('Name').inputValue()).toBe('Manage One');
    await edit.getByLabel('Name').fill('Manage One Ltd');
    await edit.getByLabel('Email (optional)').fill('billing@manage-one.example');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Sub-merchant manage-1 saved.' }).waitFor();
    await row.getByRole('cell', { name: 'Manage One Ltd' }).waitFor();

    await page.getByRole('button', { name: 'Disable manage-1' }).click();
    const disable = page.getByRole('dialog', { name: 'Disable manage-1?' });
    await disable.getByText(/no new payment sessions or payouts/).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await disable.getByRole('button', { name: 'Disable sub-merchant' }).click();
    await page.getByRole('status').filter({ hasText: 'Sub-merchant manage-1 disabled.' }).waitFor();
    await row.getByRole('cell', { name: 'Disabled' }).waitFor();
    await screenshot(page, 'manage-3-sub-merchant-disabled');
    expect(await seriousAxeViolations(page)).toEqual([]);
    const [stored]: Array<{ name: string; email: string; status: string }> =
      await api.dataSource.query(
        `SELECT name, email, status FROM sub_merchants WHERE merchant_id = $1 AND code = $2`,
        [psp.id, 'manage-1'],
      );
    expect(stored).toEqual({
      name: 'Manage One Ltd',
      email: 'billing@manage-one.example',
      status: 'disabled',
    });
    // Disabled: no new session for it.
    const refused = await api
      .post(
        '/v1/checkout/sessions',
        psp,
        { pricing_amount: '5', pricing_currency: 'USD', currency: 'USDT', network: 'TRON' },
        { 'X-Sub-Merchant-Code': 'manage-1' },
      )
      .expect(422);
    expect(refused.body.error.code).toBe('sub_merchant_disabled');

    await page.getByRole('button', { name: 'Enable manage-1' }).click();
    await page.getByRole('status').filter({ hasText: 'Sub-merchant manage-1 enabled.' }).waitFor();
    await row.getByRole('cell', { name: 'Active' }).waitFor();
    await page.getByRole('button', { name: 'Disable manage-1' }).waitFor();

    expect(await auditActions(owner.userId)).toEqual([
      'api.PATCH /v1/sub-merchants/:code manage-1',
      'api.PATCH /v1/sub-merchants/:code manage-1',
      'api.PATCH /v1/sub-merchants/:code manage-1',
    ]);
    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
