import { Logger } from '@nestjs/common';
import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';
import request, { Response } from 'supertest';
import { overrideEnvironment } from '../support/environment';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const READS_PER_SECOND = 3;
const WRITES_PER_SECOND = 3;
const PAGE_PER_MINUTE = 4;

const sessionBody = {
  pricing_amount: '10',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
};

/**
 * Fires bursts of requests until one is refused. Limits count per second: a burst of twice the
 * limit lands within one window unless the machine stalls, and then a later burst does.
 */
async function burstUntilLimited(send: () => request.Test, size: number): Promise<Response[]> {
  for (let burst = 0; burst < 10; burst++) {
    const responses = await Promise.all(Array.from({ length: size }, () => send()));
    if (responses.some((response) => response.status === 429)) return responses;
  }
  throw new Error(`No request was refused in 10 bursts of ${size}`);
}

const refused = (responses: Response[]) => responses.find((response) => response.status === 429)!;

function expectRateLimitedBody(response: Response, message: string): void {
  expect(response.body).toEqual({
    error: {
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: expect.stringContaining(message),
      request_id: response.headers['request-id'],
    },
  });
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

describe('Rate limits', () => {
  let api: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    const environment = overrideEnvironment({
      RATE_LIMIT_READS_PER_SECOND: String(READS_PER_SECOND),
      RATE_LIMIT_WRITES_PER_SECOND: String(WRITES_PER_SECOND),
      RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: String(PAGE_PER_MINUTE),
      // The hosted page counts per client address: each test names its own.
      TRUST_PROXY: 'loopback',
    });
    try {
      api = await TestApi.start();
      second = await TestApi.start();
    } finally {
      environment.restore();
    }
  });

  afterAll(async () => {
    await api?.close();
    await second?.close();
  });

  it("refuses a merchant's reads past the limit with 429 rate_limited and Retry-After", async () => {
    const merchant = await api.createMerchant();
    const first = await api.get(SESSIONS, merchant).expect(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': String(READS_PER_SECOND),
      'x-ratelimit-remaining': String(READS_PER_SECOND - 1),
      'x-ratelimit-reset': '1',
    });
    const responses = await burstUntilLimited(
      () => api.get(SESSIONS, merchant),
      READS_PER_SECOND * 2,
    );
    const limited = refused(responses);
    expectRateLimitedBody(limited, `${READS_PER_SECOND} read requests per second`);
    expect(limited.headers['retry-after']).toBe('1');
  });

  it("never limits another merchant, nor the flooding merchant's writes, for its reads", async () => {
    const flooding = await api.createMerchant();
    const other = await api.createMerchant();
    await burstUntilLimited(() => api.get(SESSIONS, flooding), READS_PER_SECOND * 2);
    await api.get(SESSIONS, other).expect(200);
    // The writes bucket is its own: the request gets as far as validation.
    await api.post(SESSIONS, flooding, {}).expect(400);
  });

  it('limits writes per merchant too', async () => {
    const merchant = await api.createMerchant();
    const responses = await burstUntilLimited(
      () => api.post(SESSIONS, merchant, {}),
      WRITES_PER_SECOND * 2,
    );
    expectRateLimitedBody(refused(responses), `${WRITES_PER_SECOND} write requests per second`);
    expect(responses.every((response) => [400, 429].includes(response.status))).toBe(true);
  });

  it('counts a merchant across API processes on the same Redis', async () => {
    // Each process sees two requests of a fresh merchant, within its own limit of three: only a
    // shared count refuses one. A fresh merchant per attempt, in case a burst straddles a second.
    for (let attempt = 0; attempt < 10; attempt++) {
      const merchant = await api.createMerchant();
      const responses = await Promise.all([
        api.get(SESSIONS, merchant),
        second.get(SESSIONS, merchant),
        api.get(SESSIONS, merchant),
        second.get(SESSIONS, merchant),
      ]);
      const limited = responses.find((response) => response.status === 429);
      if (limited) {
        expectRateLimitedBody(limited, 'read requests per second');
        return;
      }
    }
    throw new Error('Four requests against a limit of three were never refused');
  });

  it('limits the hosted page per client address across processes, and never health', async () => {
    const page = (app: TestApi, client: string) =>
      request(app.http).get('/checkout/cs_doesnotexist00000000000').set('X-Forwarded-For', client);
    for (let i = 0; i < PAGE_PER_MINUTE; i++) {
      await page(i % 2 ? second : api, '198.51.100.10').expect(404);
    }
    const limited = await page(second, '198.51.100.10').expect(429);
    expectRateLimitedBody(limited, `${PAGE_PER_MINUTE} page requests per minute`);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(1);
    await page(api, '198.51.100.11').expect(404);
    for (let i = 0; i < PAGE_PER_MINUTE * 2; i++) {
      const health = await request(api.http).get('/health').set('X-Forwarded-For', '198.51.100.10');
      expect(health.status).not.toBe(429);
      expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('serves the hosted page at its own spelling only: no other letter case escapes the limit', async () => {
    const merchant = await api.createMerchant();
    const { id } = (await api.post(SESSIONS, merchant, sessionBody).expect(201)).body as {
      id: string;
    };
    const client = '198.51.100.20';
    // A deadline, so a stream opened by mistake fails the test instead of hanging it.
    const get = (path: string) =>
      request(api.http).get(path).set('X-Forwarded-For', client).timeout({ deadline: 30_000 });
    const served = await get(`/checkout/${id}/state`).expect(200);
    expect(served.headers['x-ratelimit-limit']).toBe(String(PAGE_PER_MINUTE));
    // Routing is case-sensitive (docs/rate-limits.md): these are the API's 404, never the page,
    // so the limit's path test and the router can never disagree about what the page is.
    for (const path of [
      `/CHECKOUT/${id}/state`,
      `/Checkout/${id}/qr.svg`,
      `/CHECKOUT/${id}`,
      `/checkout/${id}/STATE`,
      `/cHeckout/${id}/stream`,
      `//checkout/${id}/state`,
      `/%63heckout/${id}/state`,
    ]) {
      const response = await get(path);
      expect({ path, status: response.status, code: response.body?.error?.code }).toEqual({
        path,
        status: 404,
        code: 'route_not_found',
      });
    }
    // What is the page is counted: a trailing slash and a query string are the same route.
    for (const path of [`/checkout/${id}/state/`, `/checkout/${id}/state?x=1`]) {
      const response = await get(path).expect(200);
      expect(response.headers['x-ratelimit-limit']).toBe(String(PAGE_PER_MINUTE));
    }
  });
});

describe('Rate limits while their Redis is unreachable', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let warn: jest.SpyInstance;

  async function closedPort(): Promise<number> {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, 'close');
    return port;
  }

  beforeAll(async () => {
    warn = jest.spyOn(Logger.prototype, 'warn');
    const environment = overrideEnvironment({
      RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RATE_LIMIT_READS_PER_SECOND: '1',
      RATE_LIMIT_WRITES_PER_SECOND: '1',
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1',
    });
    try {
      api = await TestApi.start();
    } finally {
      environment.restore();
    }
    merchant = await api.createMerchant();
  });

  afterAll(async () => {
    warn.mockRestore();
    await api?.close();
  });

  it('fails open: sessions are created and read, bad keys are 401, and a warning is logged', async () => {
    const created = await Promise.all(
      Array.from({ length: 4 }, () => api.post(SESSIONS, merchant, sessionBody).expect(201)),
    );
    const reads = await Promise.all(
      created.map((response) => api.get(`${SESSIONS}/${response.body.id}`, merchant)),
    );
    expect(reads.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    for (let i = 0; i < 3; i++) {
      await request(api.http)
        .get(SESSIONS)
        .set('Authorization', `Bearer sk_test_${'D'.repeat(43)}`)
        .expect(401);
    }
    expect(warn).toHaveBeenCalledWith(
      expect.anything(),
      expect.stringContaining('Rate-limit storage unreachable'),
    );
  });
});
