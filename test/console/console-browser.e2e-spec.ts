import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { inviteFromCli } from '../../libs/console/src/invitations/cli-invitations';
import {
  acceptInvitationInBrowser,
  ConsoleRig,
  newConsoleContext,
  openConsolePage as openPage,
  screenshot as shot,
  seriousAxeViolations,
  startConsoleRig,
} from '../support/console-browser-kit';
import { PASSWORD } from '../support/console-identity';
import { creditBalance } from '../support/ledger-credit';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const EXPECTED_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; " +
  "object-src 'none'";
// The console's budget: all of its JavaScript, every lazy page included, gzipped.
const JAVASCRIPT_BUDGET_BYTES = 200 * 1024;

/*
 * The merchant console (apps/console) as the API serves it (apps/api/src/console-ui), in a real
 * Chromium against the real API and database: the page under its strict CSP, then a merchant's
 * owner from invitation to API keys, and a viewer who may not see them.
 */
describe('Merchant console in Chromium', () => {
  let rig: ConsoleRig;
  let api: TestApi;
  let browser: Browser;
  let baseUrl: string;

  beforeAll(async () => {
    rig = await startConsoleRig();
    ({ api, browser, baseUrl } = rig);
  });

  afterAll(() => rig?.close());

  // The owner copies its secret key with the Copy button, read back from the clipboard.
  const newContext = () =>
    newConsoleContext(browser, {
      viewport: { width: 1200, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });

  describe('serving', () => {
    it('serves index.html with the strict CSP for console pages, with a fallback for unknown ones', async () => {
      for (const path of ['/console', '/console/', '/console/sign-in', '/console/no/such/page']) {
        const response = await request(api.http).get(path).expect(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(response.headers['content-security-policy']).toBe(EXPECTED_CSP);
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['referrer-policy']).toBe('same-origin');
        expect(response.headers['cache-control']).toBe('no-cache');
        expect(response.text).toContain('<div id="root"></div>');
        // Nothing inline: every script and style is a file the CSP allows as 'self'.
        expect(response.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
        expect(response.text).not.toMatch(/<style|\sstyle=/);
      }
    });

    it('serves the same app at /ops, hashed assets with a long cache, and no HTML for API or file paths', async () => {
      const index = await request(api.http).get('/ops/sign-in').expect(200);
      expect(index.headers['content-security-policy']).toBe(EXPECTED_CSP);
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(index.text)?.[1];
      expect(script).toBeDefined();
      const asset = await request(api.http).get(script!).expect(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['x-content-type-options']).toBe('nosniff');

      await request(api.http).get('/console/assets/missing-0000.js').expect(404);
      await request(api.http).get('/console/favicon.ico').expect(404);
      // An unknown console API route is the API's 404, never the app's HTML.
      for (const path of ['/console/api', '/console/api/no-such-route']) {
        const unknownApi = await request(api.http).get(path).expect(404);
        expect(unknownApi.body.error.code).toBe('route_not_found');
      }
    });
  });

  it('keeps all of its JavaScript within the gzipped budget', () => {
    const assets = join(__dirname, '..', '..', 'dist', 'console', 'assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    const gzipped = scripts.reduce(
      (total, name) => total + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length,
      0,
    );
    expect(gzipped).toBeLessThanOrEqual(JAVASCRIPT_BUDGET_BYTES);
  });

  it('renders the sign-in page with labelled fields, no CSP violation and no serious axe finding', async () => {
    const context = await newContext();
    const { page, cspViolations, errors } = await openPage(context);
    await page.goto(`${baseUrl}/console/sign-in`);
    await page.getByLabel('Email').waitFor();
    expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await page.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);

    // A wrong password is an error the page shows (and still no CSP violation).
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('The email or password is wrong.');

    await shot(page, '1-sign-in');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    // The failed sign-in's 401 is the only error the browser logs.
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  });

  it('walks an owner from invitation to API keys, and keeps a viewer out of them', async () => {
    const merchant: TestMerchant = await rig.createMerchant('Console Café');
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '1234567.891234',
    });
    // Lower case: the server stores addresses normalized.
    const ownerEmail = `owner-${merchant.id.toLowerCase()}@example.com`;
    const invitation = await inviteFromCli(
      api.dataSource,
      { publicUrl: baseUrl },
      { realm: 'merchant', merchantId: merchant.id, email: ownerEmail, role: 'owner' },
    );
    expect(invitation.invitation_url).toMatch(/\/console\/accept-invitation#token=/);

    const context = await newContext();
    const { page, cspViolations, errors } = await openPage(context);
    const recoveryCodes = await acceptInvitation(page, invitation.invitation_url);

    // Home: the merchant's name and its balances, the decimal string as it came, grouped.
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(await page.locator('.merchant-name').textContent()).toBe('Console Café');
    const balance = page.getByRole('row', { name: /ETHEREUM/ });
    await balance.waitFor();
    expect(await balance.getByRole('cell').allTextContents()).toEqual([
      'ETHEREUM',
      'USDT',
      'Own',
      '1,234,567.891234',
      '0',
    ]);
    await shot(page, '3-home');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Developers → API keys → Create secret key: the secret once, in its own dialog.
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create secret key' }).click();
    const createDialog = page.getByRole('dialog', { name: 'Create secret key' });
    await createDialog.getByLabel('Name (optional)').fill('Shop backend');
    await createDialog.getByRole('button', { name: 'Create' }).click();
    const saveDialog = page.getByRole('dialog', { name: 'Save your secret key' });
    await saveDialog.waitFor();
    const secretKey = await saveDialog.getByLabel('Secret key').inputValue();
    expect(secretKey).toMatch(/^sk_test_/);
    await saveDialog.getByRole('button', { name: 'Copy' }).click();
    await saveDialog.getByText('Copied').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secretKey);
    await shot(page, '4-save-your-secret-key');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await saveDialog.getByRole('button', { name: 'Done' }).click();
    await saveDialog.waitFor({ state: 'detached' });

    const balancesWith = (key: string) =>
      request(api.http).get('/v1/balances').set('Authorization', `Bearer ${key}`);
    await balancesWith(secretKey).expect(200);
    const row = page.getByRole('row', { name: /Shop backend/ });
    expect(await row.getByRole('cell', { name: 'Full access' }).count()).toBe(1);

    // Revoke key: confirmed in a dialog; the key stops working at once (every process within a
    // second, through pg_notify; this process forgets it itself).
    await page.getByRole('button', { name: 'Revoke key Shop backend' }).click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke key' });
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
    await revokeDialog.waitFor({ state: 'detached' });
    await waitFor(
      async () => (await balancesWith(secretKey)).status === 401,
      30_000,
      'the revoked key refused',
    );
    await row.getByRole('cell', { name: 'Revoked' }).waitFor();

    // Create restricted key: the scopes chosen, and nothing else.
    await page.getByRole('button', { name: 'Create restricted key' }).click();
    const restrictedDialog = page.getByRole('dialog', { name: 'Create restricted key' });
    await restrictedDialog.getByLabel('Name (optional)').fill('Balances reader');
    await restrictedDialog.getByLabel('balances:read').check();
    await restrictedDialog.getByRole('button', { name: 'Create' }).click();
    await saveDialog.waitFor();
    const restrictedKey = await saveDialog.getByLabel('Secret key').inputValue();
    await saveDialog.getByRole('button', { name: 'Done' }).click();
    await balancesWith(restrictedKey).expect(200);
    const outOfScope = await request(api.http)
      .get('/v1/checkout/sessions')
      .set('Authorization', `Bearer ${restrictedKey}`)
      .expect(403);
    expect(outOfScope.body.error.code).toBe('insufficient_scope');
    const restrictedRow = page.getByRole('row', { name: /Balances reader/ });
    expect(await restrictedRow.getByRole('cell', { name: 'balances:read' }).count()).toBe(1);

    // Roll key, expiring now: the CLI-issued key is replaced; the new one works, the old not.
    await balancesWith(merchant.apiKey).expect(200);
    // The CLI's key has no name.
    await page.getByRole('button', { name: 'Roll key Unnamed key' }).click();
    const rollDialog = page.getByRole('dialog', { name: 'Roll key' });
    await rollDialog.getByLabel('Now').check();
    await rollDialog.getByRole('button', { name: 'Roll key' }).click();
    await saveDialog.waitFor();
    const rolledKey = await saveDialog.getByLabel('Secret key').inputValue();
    expect(rolledKey).toMatch(/^sk_test_/);
    expect(rolledKey).not.toBe(merchant.apiKey);
    await saveDialog.getByRole('button', { name: 'Done' }).click();
    await waitFor(
      async () => (await balancesWith(merchant.apiKey)).status === 401,
      30_000,
      'the rolled key refused',
    );
    await balancesWith(rolledKey).expect(200);
    await shot(page, '5-api-keys');

    // Settings → Team → Invite member (viewer): the invitation link is shown once.
    await page.getByRole('navigation').getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    await page.getByRole('cell', { name: ownerEmail }).waitFor();
    await page.getByRole('button', { name: 'Invite member' }).click();
    const inviteDialog = page.getByRole('dialog', { name: 'Invite member' });
    const viewerEmail = `viewer-${merchant.id.toLowerCase()}@example.com`;
    await inviteDialog.getByLabel('Email').fill(viewerEmail);
    await inviteDialog.getByLabel('Role').selectOption('viewer');
    await inviteDialog.getByRole('button', { name: 'Create invitation' }).click();
    const viewerUrl = await inviteDialog.getByLabel('Invitation link').inputValue();
    expect(viewerUrl).toMatch(/\/console\/accept-invitation#token=/);
    await inviteDialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('cell', { name: viewerEmail }).waitFor();
    await shot(page, '6-team');

    // A second membership (joining another merchant with an existing account is not offered by
    // the server yet): the switcher appears, and the other merchant's role decides the navigation.
    const other = await rig.createMerchant('Second Shop');
    const added: unknown[] = await api.dataSource.query(
      `INSERT INTO console_memberships (user_id, merchant_id, role)
       SELECT id, $1, 'viewer' FROM console_users WHERE email = $2 AND realm = 'merchant'
       RETURNING user_id`,
      [other.id, ownerEmail],
    );
    expect(added).toHaveLength(1);
    await page.reload();
    const switcher = page.getByLabel('Merchant');
    await switcher.selectOption({ label: 'Second Shop' });
    await waitFor(
      async () => (await page.locator('.merchant-name').textContent()) === 'Second Shop',
      30_000,
      'the switch to Second Shop',
    );
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(await navigationLink(page, 'API keys').count()).toBe(0);
    await switcher.selectOption({ label: 'Console Café' });
    await navigationLink(page, 'API keys').waitFor();

    // Sign out, and back in with the password and a recovery code (the TOTP step is spent).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authentication code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // The viewer, in a browser of its own: no API keys anywhere, and the server agrees.
    const viewerContext = await newContext();
    const viewer = await openPage(viewerContext);
    // The link names the deployment's PUBLIC_URL; the token is in its fragment.
    await acceptInvitation(
      viewer.page,
      `${baseUrl}/console/accept-invitation${new URL(viewerUrl).hash}`,
    );
    await viewer.page.getByRole('heading', { name: 'Home' }).waitFor();
    const navigation = viewer.page.getByRole('navigation');
    expect(await navigation.getByRole('link', { name: 'Home' }).count()).toBe(1);
    expect(await navigation.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await navigation.getByRole('link', { name: 'Team' }).count()).toBe(0);
    await viewer.page.goto(`${baseUrl}/console/developers/api-keys`);
    await viewer.page.getByRole('heading', { name: 'You do not have access' }).waitFor();
    expect(
      await viewer.page.evaluate<number>(
        "fetch('/console/api/api-keys', { credentials: 'same-origin' }).then((r) => r.status)",
      ),
    ).toBe(403);
    expect(viewer.cspViolations).toEqual([]);
    await viewerContext.close();
  });

  const navigationLink = (page: Page, name: string) =>
    page.getByRole('navigation').getByRole('link', { name });

  const acceptInvitation = (page: Page, url: string) =>
    acceptInvitationInBrowser(page, url, { enrolmentScreenshot: '2-two-factor-enrolment' });
});
