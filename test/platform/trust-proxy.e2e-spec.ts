import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { overrideEnvironment } from '../support/environment';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const FAILURES_ALLOWED = 5;
const BAD_KEY = `Bearer sk_test_${'E'.repeat(43)}`;

async function startApi(variables: Record<string, string>): Promise<TestApi> {
  const environment = overrideEnvironment({
    RATE_LIMIT_FAILED_AUTH_PER_MINUTE: String(FAILURES_ALLOWED),
    ...variables,
  });
  try {
    return await TestApi.start();
  } finally {
    environment.restore();
  }
}

describe('Failed authentications behind a proxy (TRUST_PROXY=loopback)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  const from = (client: string, authorization: string) =>
    request(api.http)
      .get(SESSIONS)
      .set('X-Forwarded-For', client)
      .set('Authorization', authorization);

  beforeAll(async () => {
    api = await startApi({ TRUST_PROXY: 'loopback' });
    merchant = await api.createMerchant();
  });

  afterAll(() => api?.close());

  it('counts failures per client named in X-Forwarded-For', async () => {
    for (let i = 0; i < FAILURES_ALLOWED; i++) await from('203.0.113.50', BAD_KEY).expect(401);
    const blocked = await from('203.0.113.50', BAD_KEY).expect(429);
    expect(blocked.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: expect.stringContaining('failed authentication attempts'),
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Another client behind the same proxy is not blocked.
    await from('203.0.113.51', BAD_KEY).expect(401);
  });

  it('never refuses a valid key, from the blocked client or any other', async () => {
    for (let i = 0; i <= FAILURES_ALLOWED; i++) await from('203.0.113.60', BAD_KEY);
    await from('203.0.113.60', BAD_KEY).expect(429);
    const valid = `Bearer ${merchant.apiKey}`;
    await from('203.0.113.60', valid).expect(200);
    await from('203.0.113.61', valid).expect(200);
    await request(api.http).get(SESSIONS).set('Authorization', valid).expect(200);
  });
});

describe('Failed authentications without TRUST_PROXY', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let port: number;

  // From a loopback address of this suite's own (not 127.0.0.1), so the block it earns cannot
  // reach later suites: the counters live in the run's Redis.
  const PEER = '127.0.0.77';
  const fromPeer = (forwardedFor: string, authorization: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get(
          {
            host: '127.0.0.1',
            port,
            path: SESSIONS,
            localAddress: PEER,
            headers: { 'X-Forwarded-For': forwardedFor, Authorization: authorization },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });

  beforeAll(async () => {
    api = await startApi({});
    merchant = await api.createMerchant();
    const server = api.app.getHttpServer() as http.Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => api?.close());

  it('ignores X-Forwarded-For, and the blocked peer keeps its valid keys', async () => {
    // Rotating the header does not help: every attempt counts for the peer.
    for (let i = 0; i < FAILURES_ALLOWED; i++) {
      expect(await fromPeer(`192.0.2.${i + 1}`, BAD_KEY)).toBe(401);
    }
    expect(await fromPeer('192.0.2.50', BAD_KEY)).toBe(429);
    expect(await fromPeer('192.0.2.51', `Bearer ${merchant.apiKey}`)).toBe(200);
  });
});
