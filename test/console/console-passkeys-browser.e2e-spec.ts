import http from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { authenticator } from 'otplib';
import { Browser, chromium, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import {
  newConsoleContext,
  openConsolePage,
  screenshot,
  seriousAxeViolations,
} from '../support/console-browser-kit';
import { buildConsole } from '../support/console-build';
import { inviteMember, PASSWORD, totpCode, uniqueEmail } from '../support/console-identity';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';

/** A port free now, for PUBLIC_URL to name before the API listens on it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/*
 * Passkeys in a real Chromium with its virtual authenticator (DevTools protocol, WebAuthn domain:
 * CTAP2, internal transport, user verification): an owner adds a passkey on Settings → Security
 * after a fresh code, then signs in with it instead of the code. WebAuthn needs the page's origin
 * to be the relying party's, so this suite serves the console at PUBLIC_URL itself
 * (http://localhost:<port>: a secure context, and a domain as RP ID, which 127.0.0.1 is not).
 * Strict CSP and axe throughout.
 */
describe('Console passkeys in Chromium (issue 25)', () => {
  let api: TestApi;
  let browser: Browser;
  let baseUrl: string;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    await buildConsole();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    restoreEnvironment = withEnvironment({ PUBLIC_URL: baseUrl });
    api = await TestApi.start();
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      // localhost is the loopback the API listens on, whatever the resolver says of ::1.
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    restoreEnvironment?.();
  });

  /** A current code the server has not accepted yet (stands for waiting for the next step). */
  async function freshCode(email: string, secret: string): Promise<string> {
    await api.dataSource.query(
      `UPDATE console_users SET totp_last_step = NULL WHERE realm = 'merchant' AND email = $1`,
      [email],
    );
    return totpCode(secret);
  }

  async function expectNoSeriousAxeFinding(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  it('adds a passkey on the Security page, signs in with it instead of the code, removes it', async () => {
    const merchant = await api.createMerchant({ name: 'Passkeys Browser Shop' });
    const email = uniqueEmail('passkey-owner').toLowerCase();
    const invitation = await inviteMember(api, merchant, email, 'owner');
    expect(invitation.url.startsWith(`${baseUrl}/console/`)).toBe(true);

    const context = await newConsoleContext(browser);
    const { page, cspViolations, errors } = await openConsolePage(context);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    // Accept the invitation and enrol TOTP, keeping the secret for the fresh codes.
    await page.goto(invitation.url);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('img', { name: 'QR code of your two-factor secret' }).waitFor();
    const secret = (await page.locator('code.secret').textContent()) ?? '';
    await page.getByLabel('Authentication code').fill(authenticator.generate(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page
      .getByRole('list', { name: 'Save your recovery codes' })
      .getByRole('listitem')
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // Settings → Security: add a passkey after a fresh code.
    await page.goto(`${baseUrl}/console/settings/security`);
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    await page.getByText('No passkeys yet.').waitFor();
    await expectNoSeriousAxeFinding(page);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a passkey' });
    await dialog.getByLabel('Name').fill('Test laptop');
    await dialog.getByLabel('Authentication code').fill(await freshCode(email, secret));
    await expectNoSeriousAxeFinding(page);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey Test laptop added.' }).waitFor();
    await page.getByRole('rowheader', { name: 'Test laptop' }).waitFor();
    await page.getByRole('button', { name: 'Remove passkey Test laptop' }).waitFor();
    await expectNoSeriousAxeFinding(page);
    await screenshot(page, 'security-passkeys');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    const [stored] = await api.dataSource.query(
      `SELECT p.credential_id, p.transports FROM console_passkeys p
         JOIN console_users u ON u.id = p.user_id WHERE u.email = $1`,
      [email],
    );
    expect(Buffer.from(stored.credential_id, 'base64url')).toEqual(
      Buffer.from(credentials[0].credentialId, 'base64'),
    );
    expect(stored.transports).toEqual(['internal']);

    // Signed out (the cookie gone), then signed in with the password and the passkey.
    await context.clearCookies();
    await page.goto(`${baseUrl}/console/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
    await usePasskey.waitFor();
    await expectNoSeriousAxeFinding(page);
    await screenshot(page, 'two-factor-passkey');
    await usePasskey.click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    await waitFor(
      async () => {
        const [used] = await api.dataSource.query(
          `SELECT p.last_used_at, p.sign_count FROM console_passkeys p
             JOIN console_users u ON u.id = p.user_id WHERE u.email = $1`,
          [email],
        );
        return used.last_used_at !== null;
      },
      30_000,
      'the passkey recorded as used',
    );
    const actions: Array<{ action: string; details: Record<string, unknown> }> =
      await api.dataSource.query(
        `SELECT a.action, a.details FROM console_audit_log a
           JOIN console_users u ON u.id = a.actor_id
          WHERE u.email = $1 ORDER BY a.created_at, a.id`,
        [email],
      );
    expect(actions.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['passkey.added', 'passkey.used']),
    );
    expect(actions.filter((entry) => entry.action === 'user.signed_in').at(-1)?.details).toEqual({
      method: 'passkey',
    });

    await page.goto(`${baseUrl}/console/settings/security`);
    await page.getByRole('rowheader', { name: 'Test laptop' }).waitFor();
    expect(await page.getByRole('cell', { name: 'Never' }).count()).toBe(0);
    await expectNoSeriousAxeFinding(page);

    // Removed with a fresh code: the list is empty again.
    await page.getByRole('button', { name: 'Remove passkey Test laptop' }).click();
    const removal = page.getByRole('dialog', { name: 'Remove this passkey' });
    await removal.getByLabel('Authentication code').fill(await freshCode(email, secret));
    await expectNoSeriousAxeFinding(page);
    await removal.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    const [{ count }] = await api.dataSource.query(
      `SELECT count(*)::int AS count FROM console_passkeys p
         JOIN console_users u ON u.id = p.user_id WHERE u.email = $1`,
      [email],
    );
    expect(count).toBe(0);

    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
