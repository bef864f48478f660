import { readFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';
import request from 'supertest';
import { WatcherStatusRepository } from '@app/deposits';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

/** The notice element of the page: its text and whether it is hidden. */
function noticeOf(html: string): { text: string; hidden: boolean } {
  const match = /<p id="detection-notice" class="detection-notice"( hidden)?>([^<]*)<\/p>/.exec(
    html,
  );
  if (!match) throw new Error('no detection notice element in the page');
  return { text: match[2], hidden: match[1] !== undefined };
}

/** The first `session` event of the page's Server-Sent Events stream. */
function firstStreamedView(url: string): Promise<{ detection: string }> {
  return new Promise((resolve, reject) => {
    const call = http.get(url, (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        const data = /^data: (.*)$/m.exec(buffer);
        if (data && buffer.includes('\n\n', data.index)) {
          call.destroy();
          resolve(JSON.parse(data[1]));
        }
      });
    });
    call.on('error', reject);
  });
}

/*
 * The hosted page tells the payer when detection on the session's network is delayed or down,
 * from the deposit watcher's reports (written here through WatcherStatusRepository, as the
 * watcher writes them), with the same rules as GET /v1/networks.
 */
describe('Hosted checkout page: detection delayed on the network', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let status: WatcherStatusRepository;
  let baseUrl: string;
  const previousWatchNetworks = process.env.WATCH_NETWORKS;

  beforeAll(async () => {
    process.env.WATCH_NETWORKS = 'ETHEREUM,BSC';
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Detection Café' });
    status = api.app.get(WatcherStatusRepository);
    await api.dataSource.query(`DELETE FROM watcher_status`);
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await api?.close();
    if (previousWatchNetworks === undefined) delete process.env.WATCH_NETWORKS;
    else process.env.WATCH_NETWORKS = previousWatchNetworks;
  });

  const stateOf = async (id: string) =>
    (await request(api.http).get(`/checkout/${id}/state`).expect(200)).body as {
      detection: string;
      network_name: string;
    };
  const pageOf = async (id: string, locale = 'en') =>
    (await request(api.http).get(`/checkout/${id}?locale=${locale}`).expect(200)).text;

  it('says nothing while detection on the network is operational', async () => {
    await status.recordSuccess('ETHEREUM', 7_000_000, 7_000_000);
    const session = await createSession(api, merchant, {
      pricing_amount: '12',
      network: 'ETHEREUM',
    });
    expect((await stateOf(session.id)).detection).toBe('operational');
    const html = await pageOf(session.id);
    expect(noticeOf(html)).toEqual({ text: '', hidden: true });
    // The live region is in the page all along, so the notice is announced when it appears.
    expect(html).toMatch(
      /<div id="detection-live" class="detection-live" role="status" aria-live="polite" aria-atomic="true">/,
    );
  });

  it('tells the payer, calmly and in their language, when detection is down', async () => {
    // The watcher has only failed on BSC so far.
    await status.recordFailure('BSC', 'eth_blockNumber: node unreachable (ECONNREFUSED)');
    const session = await createSession(api, merchant, { pricing_amount: '12', network: 'BSC' });
    const state = await stateOf(session.id);
    expect(state).toMatchObject({ detection: 'down', network_name: 'BNB Smart Chain Testnet' });
    expect(noticeOf(await pageOf(session.id))).toEqual({
      text:
        'Payments on BNB Smart Chain Testnet are being detected with a delay. Your payment is ' +
        'safe: it will appear here as soon as it is detected.',
      hidden: false,
    });
    expect(noticeOf(await pageOf(session.id, 'de'))).toEqual({
      text:
        'Zahlungen im Netzwerk BNB Smart Chain Testnet werden derzeit verzögert erkannt. Ihre ' +
        'Zahlung ist sicher: Sie erscheint hier, sobald sie erkannt wurde.',
      hidden: false,
    });
    for (const locale of ['es', 'fr', 'pt']) {
      const notice = noticeOf(await pageOf(session.id, locale));
      expect(notice.hidden).toBe(false);
      expect(notice.text).toContain('BNB Smart Chain Testnet');
    }
    // The live stream carries it too (the page updates without a reload).
    expect(await firstStreamedView(`${baseUrl}/checkout/${session.id}/stream`)).toMatchObject({
      detection: 'down',
    });
  });

  it('shows the notice while delayed and takes it away once the watcher recovers', async () => {
    const session = await createSession(api, merchant, {
      pricing_amount: '12',
      network: 'ETHEREUM',
      currency: 'USDC',
    });
    await status.recordSuccess('ETHEREUM', 7_000_010, 7_000_010);
    for (let failure = 0; failure < 3; failure += 1) {
      await status.recordFailure('ETHEREUM', 'eth_getLogs: timeout');
    }
    expect((await stateOf(session.id)).detection).toBe('delayed');
    expect(noticeOf(await pageOf(session.id)).hidden).toBe(false);

    await status.recordSuccess('ETHEREUM', 7_000_020, 7_000_020);
    expect((await stateOf(session.id)).detection).toBe('operational');
    expect(noticeOf(await pageOf(session.id))).toEqual({ text: '', hidden: true });
  });

  it('says nothing for a network this deployment does not watch', async () => {
    await status.recordFailure('TRON', 'TRON getNowBlock: HTTP 503');
    const session = await createSession(api, merchant, { pricing_amount: '12', network: 'TRON' });
    expect((await stateOf(session.id)).detection).toBe('operational');
    expect(noticeOf(await pageOf(session.id)).hidden).toBe(true);
  });

  describe('in Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    });

    afterAll(async () => {
      await browser?.close();
    });

    /** What wakes the page's stream when a session changes (sent by settlement at commit). */
    const announceChange = (sessionId: string) =>
      api.dataSource.query(`SELECT pg_notify('checkout_session_changed', $1)`, [sessionId]);

    it('shows and hides the notice live, without a reload, and stays accessible', async () => {
      await status.recordSuccess('ETHEREUM', 7_000_100, 7_000_100);
      const session = await createSession(api, merchant, {
        pricing_amount: '12',
        network: 'ETHEREUM',
      });
      const page = await browser.newPage({ locale: 'fr-FR' });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${baseUrl}/checkout/${session.id}`);
      const notice = page.locator('#detection-notice');
      expect(await notice.isVisible()).toBe(false);
      expect(await page.locator('#detection-live').getAttribute('role')).toBe('status');

      for (let failure = 0; failure < 3; failure += 1) {
        await status.recordFailure('ETHEREUM', 'eth_getLogs: timeout');
      }
      await announceChange(session.id);
      await waitFor(async () => notice.isVisible(), 10_000, 'the notice');
      expect(await notice.textContent()).toBe(
        'Les paiements sur le réseau Ethereum Sepolia sont détectés avec du retard. Votre ' +
          'paiement est en sécurité\u00a0: il apparaîtra ici dès qu’il sera détecté.',
      );
      // axe through the DevTools protocol: the page's CSP rightly refuses a <script>.
      await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
      const violations = await page.evaluate<Array<{ id: string; impact: string }>>(
        'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
      );
      expect(violations.filter((item) => ['serious', 'critical'].includes(item.impact))).toEqual(
        [],
      );

      await status.recordSuccess('ETHEREUM', 7_000_110, 7_000_110);
      await announceChange(session.id);
      await waitFor(async () => !(await notice.isVisible()), 10_000, 'the notice to go');
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
