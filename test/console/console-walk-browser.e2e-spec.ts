import { Browser } from 'playwright-core';
import request from 'supertest';
import {
  ConsoleWebhookRig,
  navigationLink,
  newConsoleContext,
  openConsolePage,
  seriousAxeViolations,
  signInThroughForm,
  startConsoleWebhookRig,
} from '../support/console-browser-kit';
import { PASSWORD, signedInMember } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { ENDPOINTS, PayoutEventSource } from '../support/webhook-env';
import { WebhookReceiver } from '../support/webhook-receiver';

/*
 * The rest of issue 25's browser walk: rolling a key with an hour's overlap, CSRF-less writes
 * refused, the sign-in lockout as a person meets it, and a failed webhook delivery resent from the
 * console. Every page visited runs under the strict CSP without a serious axe finding.
 */
describe('Console walk in Chromium', () => {
  let rig: ConsoleWebhookRig;
  let api: TestApi;
  let target: WebhookReceiver;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    rig = await startConsoleWebhookRig();
    ({ api, target, browser, baseUrl } = rig);
  });

  afterAll(() => rig?.close());

  const createMerchant = (name: string): Promise<TestMerchant> => rig.createMerchant(name);

  const balancesWith = (key: string) =>
    request(api.http).get('/v1/balances').set('Authorization', `Bearer ${key}`);

  it('rolls a key with an hour of overlap: both keys work and the old one expires in an hour', async () => {
    const merchant = await createMerchant('Walk Roll');
    const owner = await signedInMember(api, merchant, 'owner');
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'API keys').click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    // The CLI's key has no name.
    await page.getByRole('button', { name: 'Roll key Unnamed key' }).click();
    const rollDialog = page.getByRole('dialog', { name: 'Roll key' });
    await rollDialog.getByLabel('In 1 hour').check();
    expect(await seriousAxeViolations(page)).toEqual([]);
    const rolledAt = Date.now();
    await rollDialog.getByRole('button', { name: 'Roll key' }).click();
    const saveDialog = page.getByRole('dialog', { name: 'Save your secret key' });
    await saveDialog.waitFor();
    const rolledKey = await saveDialog.getByLabel('Secret key').inputValue();
    expect(rolledKey).toMatch(/^sk_test_/);
    expect(rolledKey).not.toBe(merchant.apiKey);
    await saveDialog.getByRole('button', { name: 'Done' }).click();
    await saveDialog.waitFor({ state: 'detached' });

    // Both work during the overlap.
    await balancesWith(merchant.apiKey).expect(200);
    await balancesWith(rolledKey).expect(200);

    const keys = await page.evaluate<
      Array<{
        id: string;
        expires_at: string | null;
        rolled_from_key_id: string | null;
        key_hint: string;
      }>
    >("fetch('/console/api/api-keys', { credentials: 'same-origin' }).then((r) => r.json())");
    const replacement = keys.find((key) => key.rolled_from_key_id !== null);
    const old = keys.find((key) => key.id === replacement?.rolled_from_key_id);
    expect(old?.expires_at).toEqual(expect.any(String));
    const expiresInMs = Date.parse(old?.expires_at ?? '') - rolledAt;
    expect(expiresInMs).toBeGreaterThan(55 * 60_000);
    expect(expiresInMs).toBeLessThan(65 * 60_000);
    expect(replacement?.expires_at).toBeNull();
    // The list shows it too: a date on the old key's row, "Never" on the new one's.
    const expiryOf = (hint: string) =>
      page.getByRole('row').filter({ hasText: hint }).getByRole('cell').nth(4);
    await waitFor(
      async () => (await expiryOf(replacement?.key_hint ?? '').textContent()) === 'Never',
      30_000,
      'the replacement listed',
    );
    expect(await expiryOf(old?.key_hint ?? '').textContent()).toMatch(/\d/);
    expect(await seriousAxeViolations(page)).toEqual([]);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses a session-cookie POST without the CSRF token, on the console API and on /v1', async () => {
    const merchant = await createMerchant('Walk CSRF');
    const owner = await signedInMember(api, merchant, 'owner');
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    for (const path of ['/console/api/api-keys', ENDPOINTS]) {
      // A string: the test's TypeScript has no DOM types; the page runs it as it is.
      const answer = await page.evaluate<{ status: number; code: string }>(
        `fetch(${JSON.stringify(path)}, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
          credentials: 'same-origin',
        }).then(async (response) => ({
          status: response.status,
          code: (await response.json()).error.code,
        }))`,
      );
      expect([path, answer]).toEqual([path, { status: 403, code: 'csrf_failed' }]);
    }
    // Nothing was made: the merchant still has only the CLI's key and no endpoint.
    const { body: endpoints } = await api.get(ENDPOINTS, merchant).expect(200);
    expect(endpoints).toEqual([]);

    expect(cspViolations).toEqual([]);
    // The two 403s the page asked for are the only errors logged.
    expect(errors.filter((error) => !error.includes('403'))).toEqual([]);
    await context.close();
  });

  it('locks sign-in after 5 wrong passwords, and the right one waits too', async () => {
    const merchant = await createMerchant('Walk Lockout');
    // A fresh address: the lock is per address typed.
    const member = await signedInMember(api, merchant, 'owner', 'walk-lockout');
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await page.goto(`${baseUrl}/console/sign-in`);
    await page.getByLabel('Email').fill(member.email);
    const alert = page.getByRole('alert');
    const locked = /^Too many attempts\. Try again (in \d+ seconds|later)\.$/;
    let lockedOnAttempt = 0;
    for (let attempt = 1; attempt <= 6 && lockedOnAttempt === 0; attempt += 1) {
      await page.getByLabel('Password').fill(`wrong password ${attempt}`);
      const answer = page.waitForResponse((response) =>
        response.url().endsWith('/console/api/sign-in'),
      );
      await page.getByRole('button', { name: 'Sign in' }).click();
      const status = (await answer).status();
      await alert.waitFor();
      if (status === 429) {
        await page.getByText(locked).waitFor();
        lockedOnAttempt = attempt;
      } else {
        expect([attempt, status]).toEqual([attempt, 401]);
        await page.getByText('The email or password is wrong.').waitFor();
      }
      if (attempt === 1) expect(await seriousAxeViolations(page)).toEqual([]);
    }
    // The 5th failure locks, and its own answer already says so (docs/console.md).
    expect(lockedOnAttempt).toBe(5);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The right password is refused as well while the lock lasts.
    await page.getByLabel('Password').fill(PASSWORD);
    const answer = page.waitForResponse((response) =>
      response.url().endsWith('/console/api/sign-in'),
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await answer).status()).toBe(429);
    await page.getByText(locked).waitFor();
    expect(page.url()).toMatch(/\/console\/sign-in$/);

    expect(cspViolations).toEqual([]);
    expect(errors.filter((error) => !/\b(401|429)\b/.test(error))).toEqual([]);
    await context.close();
  });

  it('resends a failed webhook delivery from the console, and the resend is delivered', async () => {
    const merchant = await createMerchant('Walk Resend');
    const owner = await signedInMember(api, merchant, 'owner');
    // Failing until the test says otherwise, so the first attempt fails for certain.
    target.replyAlways({ status: 500, body: 'down' });
    await api.post(ENDPOINTS, merchant, { url: `${target.url}/walk-hooks` }).expect(201);
    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    await signInThroughForm(page, baseUrl, owner.email, owner.recoveryCodes[0]);
    await navigationLink(page, 'Events').click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    const source = new PayoutEventSource(api);
    await source.fund(merchant);
    const payoutId = await source.createPayout(merchant);
    const { body: events } = await api
      .get(`/v1/events?object_id=${payoutId}&type=payout.created`, merchant)
      .expect(200);
    expect(events).toHaveLength(1);
    const eventId = events[0].id as string;
    await waitFor(
      async () => {
        const { body } = await api.get(`/v1/events/${eventId}/deliveries`, merchant).expect(200);
        const attempts = (body[0]?.attempts ?? []) as Array<{ status_code: number | null }>;
        return attempts.some((attempt) => attempt.status_code === 500);
      },
      30_000,
      'the first attempt failed',
    );

    await page.getByLabel('Object id').fill(payoutId);
    const created = page.locator('.events > li', { hasText: eventId });
    await created.locator('summary').click();
    const attempts = created.getByRole('table', { name: new RegExp(`${target.url}/walk-hooks`) });
    await attempts.waitFor();
    expect(await attempts.locator('tbody').textContent()).toContain('500');

    // The receiver is back; the resend delivers.
    target.replyAlways({ status: 200, body: 'ok' });
    const receivedBefore = target.forEvent(eventId).length;
    await created.getByRole('button', { name: `Resend event ${eventId}` }).click();
    await created.getByRole('status').waitFor();
    await waitFor(
      async () => target.forEvent(eventId).length > receivedBefore,
      30_000,
      'the resent delivery received',
    );
    await waitFor(
      async () => {
        await page.reload();
        await page.getByLabel('Object id').fill(payoutId);
        await created.locator('summary').click();
        await attempts.waitFor();
        const caption = (await attempts.getByRole('caption').textContent()) ?? '';
        return caption.includes('Succeeded');
      },
      30_000,
      'the console showing the delivery succeeded',
    );
    // Failed attempts (the first, and any automatic retry a slow machine let in before the
    // click), then the delivered one; nothing after it. The count of automatic retries depends
    // on the machine's speed, so it is not asserted.
    const statuses = await attempts.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(statuses.filter((status) => status === '200')).toEqual(['200']);
    expect(statuses.filter((status) => status !== '200' && status !== '500')).toEqual([]);
    expect(target.forEvent(eventId).length).toBe(statuses.length);
    expect(await seriousAxeViolations(page)).toEqual([]);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
