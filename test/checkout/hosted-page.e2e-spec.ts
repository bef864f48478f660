import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { SessionSettlementService } from '@app/checkout';
import { insertSessionTransaction } from '../support/session-transactions';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

/** The page's sessions: 25 USDT on ETHEREUM, with a reference the page must never show. */
const PAGE_SESSION = { pricing_amount: '25', client_reference_id: 'order-secret-77' };

interface PublicView {
  id: string;
  status: string;
  amount: string;
  amount_due: string;
  amount_seen: string;
  payment_uri: string;
  transactions: Array<{ status: string; confirmations: number }>;
}

/** A real Server-Sent Events connection collecting the views it receives. */
class StreamReader {
  readonly views: PublicView[] = [];
  private finished = false;
  private readonly request: http.ClientRequest;

  constructor(url: string) {
    this.request = http.get(url, (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('end', () => (this.finished = true));
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          buffer = buffer.slice(end + 2);
          if (data) this.views.push(JSON.parse(data));
        }
      });
    });
    this.request.on('error', () => undefined);
  }

  async until(check: (views: PublicView[]) => boolean, what: string): Promise<void> {
    await waitFor(async () => check(this.views), 20_000, what);
  }

  /** Resolves when the server has ended the stream. */
  async ended(): Promise<void> {
    await waitFor(async () => this.finished, 20_000, 'the end of the stream');
  }

  close(): void {
    this.request.destroy();
  }
}

describe('Hosted checkout page (HTTP)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let server: http.Server;
  let baseUrl: string;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Café <Olé>' });
    server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await api?.close();
  });

  it("serves the page at the session's url path: essentials in the HTML, strict headers", async () => {
    const session = await createSession(api, merchant, {
      ...PAGE_SESSION,
      cancel_url: 'https://shop.example/cart',
    });
    const path = new URL(session.url).pathname;
    expect(path).toBe(`/checkout/${session.id}`);
    const response = await request(api.http).get(path).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const csp = response.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    const html = response.text;
    expect(html).toContain(session.pay_address);
    expect(html).toContain('USDT');
    expect(html).toContain('https://shop.example/cart');
    // The merchant's name is escaped, never markup.
    expect(html).toContain('Café &lt;Olé&gt;');
    expect(html).not.toContain('<Olé>');
    // Nothing private of the merchant's.
    expect(html).not.toContain('order-secret-77');
    expect(html).not.toContain(merchant.id);
    // No inline script or style: the CSP would block it.
    expect(html).not.toMatch(/<script(?![^>]*(src=|type="application\/json"))[^>]*>/);
    expect(html).not.toMatch(/ style=|<style|\son[a-z]+=/i);
  });

  it('chooses the language from ?locale= first, then Accept-Language', async () => {
    const session = await createSession(api, merchant, PAGE_SESSION);
    const german = await request(api.http)
      .get(`/checkout/${session.id}`)
      .set('Accept-Language', 'de-CH,de;q=0.9,en;q=0.5')
      .expect(200);
    expect(german.headers['content-language']).toBe('de');
    expect(german.text).toMatch(/<html lang="de"/);
    const spanish = await request(api.http)
      .get(`/checkout/${session.id}?locale=es`)
      .set('Accept-Language', 'de')
      .expect(200);
    expect(spanish.text).toMatch(/<html lang="es"/);
  });

  it('answers an unknown id with a friendly HTML 404', async () => {
    for (const id of ['cs_0000000000000000000000', 'not-an-id']) {
      const response = await request(api.http).get(`/checkout/${id}`).expect(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toMatch(/<html/);
    }
    await request(api.http).get('/checkout/cs_0000000000000000000000/state').expect(404);
  });

  it('the public state carries what a payer needs and nothing of the merchant', async () => {
    const session = await createSession(api, merchant, PAGE_SESSION);
    const { body } = await request(api.http).get(`/checkout/${session.id}/state`).expect(200);
    expect(body).toMatchObject({
      id: session.id,
      status: 'Pending',
      amount: '25',
      amount_due: '25',
      currency: 'USDT',
      network: 'ETHEREUM',
      pay_address: session.pay_address,
      merchant_name: 'Café <Olé>',
    });
    expect(body.payment_uri).toMatch(
      new RegExp(
        `^ethereum:0x[0-9a-fA-F]{40}@\\d+/transfer\\?address=${session.pay_address}&uint256=25000000$`,
      ),
    );
    for (const hidden of ['merchant_id', 'fee_amount', 'net_amount', 'client_reference_id']) {
      expect(body).not.toHaveProperty(hidden);
    }
    expect(JSON.stringify(body)).not.toContain('order-secret-77');
  });

  it('serves the QR code and the page assets from the app itself', async () => {
    const session = await createSession(api, merchant, PAGE_SESSION);
    const qr = await request(api.http).get(`/checkout/${session.id}/qr.svg`).expect(200);
    expect(qr.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const js = await request(api.http).get('/checkout/assets/page.js').expect(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    await request(api.http)
      .get('/checkout/assets/page.js')
      .set('If-None-Match', js.headers.etag)
      .expect(304);
    await request(api.http).get('/checkout/assets/page.css').expect(200);
    await request(api.http).get('/checkout/assets/secrets.json').expect(404);
  });

  it('ends open streams when the API shuts down, instead of waiting for the pages', async () => {
    const other = await TestApi.start();
    const server = other.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = await createSession(api, merchant, PAGE_SESSION);
    const stream = new StreamReader(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout/${session.id}/stream`,
    );
    try {
      await stream.until((views) => views.length === 1, 'the first view');
      await other.close();
      await stream.ended();
    } finally {
      stream.close();
    }
  });

  it('streams a change committed by another connection (as the worker makes it) at once', async () => {
    const session = await createSession(api, merchant, PAGE_SESSION);
    const stream = new StreamReader(`${baseUrl}/checkout/${session.id}/stream`);
    await stream.until((views) => views.length === 1, 'the first view');
    // A payment of 10 seen on chain, settled in its own transaction, as the watcher does it.
    await insertSessionTransaction(api.dataSource, {
      id: `ctx_${session.id.slice(3)}`,
      sessionId: session.id,
      txHash: `0x${'ab'.repeat(32)}`,
      amount: '10',
      status: 'Pending',
      network: 'ETHEREUM',
      currency: 'USDT',
      blockNumber: 5,
    });
    await api.dataSource.transaction((manager) =>
      api.app.get(SessionSettlementService).settle(manager, session.id, [
        {
          transactionId: `ctx_${session.id.slice(3)}`,
          kind: 'detected',
          previousStatus: null,
        },
      ]),
    );
    try {
      await stream.until((views) => views.some((view) => view.amount_seen === '10'), 'the change');
      expect(stream.views[0]).toMatchObject({ status: 'Pending', amount_due: '25' });
      expect(stream.views.at(-1)).toMatchObject({ amount_seen: '10', amount_due: '15' });
      expect(stream.views.at(-1)!.payment_uri).toMatch(/uint256=15000000$/);
    } finally {
      stream.close();
    }
  });
});
