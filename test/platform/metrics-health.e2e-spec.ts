import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import request from 'supertest';
import { CHAIN_FAMILIES } from '@app/chains';
import { PayAddressPool } from '@app/checkout';
import { QUEUES } from '@app/common';
import { buildOpenApiDocument } from '../../apps/api/src/openapi';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, startDevnet } from '../support/devnet';
import { creditBalance } from '../support/ledger-credit';
import { postPayout, randomEvmAddress } from '../support/payouts-api';
import { freePort } from '../support/private-services';
import { TestApi, TestMerchant } from '../support/test-app';
import { TEST_REDIS_URL } from '../setup/test-database';
import { waitFor } from '../support/wait-for';
import { withEnvironment } from '../support/webhook-env';

const SESSIONS = '/v1/checkout/sessions';

/** The value of one sample of the exposition, or undefined when the series is absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return undefined;
}

/*
 * The API's operations surface, in process: liveness, readiness with a network whose RPC is up
 * (a devnet) and one whose RPC is down (a closed port), and /metrics read against the database
 * and Redis it describes.
 */
describe('Metrics and health', () => {
  let devnet: Devnet;
  let environment: ReturnType<typeof useChainEnvironment>;
  let api: TestApi;
  let merchant: TestMerchant;
  let deadRpcPort: number;

  beforeAll(async () => {
    devnet = await startDevnet();
    deadRpcPort = await freePort();
    const file = JSON.parse(devnet.networksFileJson({ confirmations: 1 }));
    file.networks.BSC = { rpcUrls: [`http://127.0.0.1:${deadRpcPort}`] };
    environment = useChainEnvironment(JSON.stringify(file), {
      WATCH_NETWORKS: 'ETHEREUM,BSC',
      // The payout.created delivery goes to a loopback port nobody listens on (no worker runs).
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
    });
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Metrics Shop' });
  });

  afterAll(async () => {
    await api?.close();
    environment?.restore();
    await devnet?.stop();
  });

  const scrape = async () => {
    const response = await request(api.http).get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return response.text;
  };

  describe('health', () => {
    it('/health/live answers 200 whatever the dependencies', async () => {
      const { body } = await request(api.http).get('/health/live').expect(200);
      expect(body).toEqual({ status: 'ok' });
    });

    it('/health/ready names each dependency; an RPC down is reported without failing it', async () => {
      const { body } = await request(api.http).get('/health/ready').expect(200);
      expect(body).toEqual({
        status: 'degraded',
        info: {
          database: { status: 'up' },
          redis: { status: 'up' },
          rpc_ETHEREUM: { status: 'up', required: false },
        },
        error: { rpc_BSC: { status: 'down', required: false, message: expect.any(String) } },
        details: {
          database: { status: 'up' },
          redis: { status: 'up' },
          rpc_ETHEREUM: { status: 'up', required: false },
          rpc_BSC: { status: 'down', required: false, message: expect.any(String) },
        },
      });
      // The RPC URL may carry an API key: never in the answer.
      expect(JSON.stringify(body)).not.toContain(String(deadRpcPort));
    });

    it('/health keeps its original answer (the database)', async () => {
      const { body } = await request(api.http).get('/health').expect(200);
      expect(body).toEqual({
        status: 'ok',
        info: { database: { status: 'up' } },
        error: {},
        details: { database: { status: 'up' } },
      });
    });
  });

  describe('/metrics', () => {
    it('counts requests by route pattern and status, never by URL', async () => {
      const missing = `cs_${randomUUID().replace(/-/g, '').slice(0, 22)}`;
      for (let i = 0; i < 2; i++) await api.get(`${SESSIONS}/${missing}`, merchant).expect(404);
      await request(api.http).get(`/no/such/route/${missing}`).expect(404);

      const text = await scrape();
      const route = { method: 'GET', route: `${SESSIONS}/:id`, status: '404' };
      expect(sample(text, 'payments_http_requests_total', route)).toBe(2);
      expect(sample(text, 'payments_http_request_duration_seconds_count', route)).toBe(2);
      expect(
        sample(text, 'payments_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }),
      ).toBe(2);
      const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
      expect(sample(text, 'payments_http_requests_total', unmatched)).toBe(1);
      expect(text).not.toContain(missing);
      // Process metrics come along.
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    });

    it('reports queues, webhook backlog, watcher lag, pool size and open payouts as stored', async () => {
      // State to report: a payout (Pending, its send job waiting: no worker runs here), its
      // payout.created delivery due, and a watcher report 30 blocks behind on ETHEREUM.
      await creditBalance(api.dataSource, {
        merchantId: merchant.id,
        network: 'ETHEREUM',
        currency: 'USDT',
        amount: '100',
      });
      await api
        .post('/v1/webhook-endpoints', merchant, { url: 'http://127.0.0.1:9/hooks' })
        .expect(201);
      await postPayout(api, merchant, {
        amount: '10',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      }).expect(201);
      // The gauges' snapshot is taken after the watcher report below: no fewer deliveries were due.
      const dueBeforeSnapshot = await deliveriesDue();
      await api.dataSource.query(
        `INSERT INTO watcher_status (network, chain_head, scanned_block, last_success_at,
                                     consecutive_failures, updated_at)
         VALUES ('ETHEREUM', 150, 120, now(), 0, now())
         ON CONFLICT (network) DO UPDATE SET chain_head = 150, scanned_block = 120,
           last_success_at = now(), consecutive_failures = 0, updated_at = now()`,
      );
      await api.dataSource.query(`DELETE FROM watcher_status WHERE network = 'BSC'`);

      const expected = await storedState();
      expect(expected.openPayouts.get('ETHEREUM:Pending')).toBeGreaterThanOrEqual(1);
      expect(expected.deliveriesDue).toBeGreaterThanOrEqual(1);
      expect(expected.payoutsWaiting).toBeGreaterThanOrEqual(1);

      // Gauges are cached for a few seconds: the first scrape above may show older numbers.
      let text = '';
      await waitFor(
        async () => {
          text = await scrape();
          return (
            sample(text, 'payments_deposit_watcher_lag_blocks', { network: 'ETHEREUM' }) === 30
          );
        },
        15_000,
        'the gauges to show the new state',
      );
      const now = await storedState();
      expect(sample(text, 'payments_metrics_source_up', { source: 'database' })).toBe(1);
      expect(sample(text, 'payments_metrics_source_up', { source: 'redis' })).toBe(1);
      for (const [key, count] of now.openPayouts) {
        const [network, status] = key.split(':');
        expect(sample(text, 'payments_payouts_open', { network, status })).toBe(count);
      }
      // Earlier suites' retries fall due as time passes: the snapshot's count lies between the
      // counts read before it was taken and after it was scraped.
      const due = sample(text, 'payments_webhook_deliveries_due');
      expect(due).toBeGreaterThanOrEqual(dueBeforeSnapshot);
      expect(due).toBeLessThanOrEqual(now.deliveriesDue);
      expect(sample(text, 'payments_webhook_oldest_due_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'payments_queue_jobs', { queue: 'payouts', state: 'waiting' })).toBe(
        now.payoutsWaiting,
      );
      for (const queue of Object.values(QUEUES)) {
        expect(sample(text, 'payments_queue_jobs', { queue, state: 'active' })).toBeDefined();
      }
      for (const family of CHAIN_FAMILIES) {
        expect(sample(text, 'payments_pay_address_pool_available', { chain_family: family })).toBe(
          now.pool.get(family) ?? 0,
        );
      }
      // 30 blocks behind with 1 confirmation is more than the 10-block margin: delayed.
      expect(
        sample(text, 'payments_deposit_watcher_health', { network: 'ETHEREUM', health: 'delayed' }),
      ).toBe(1);
      expect(
        sample(text, 'payments_deposit_watcher_health', {
          network: 'ETHEREUM',
          health: 'operational',
        }),
      ).toBe(0);
      expect(
        sample(text, 'payments_deposit_watcher_consecutive_failures', { network: 'ETHEREUM' }),
      ).toBe(0);
      // Never reported on: down, and no lag to show. Unwatched networks have no series at all.
      expect(
        sample(text, 'payments_deposit_watcher_health', { network: 'BSC', health: 'down' }),
      ).toBe(1);
      expect(
        sample(text, 'payments_deposit_watcher_lag_blocks', { network: 'BSC' }),
      ).toBeUndefined();
      expect(
        sample(text, 'payments_deposit_watcher_health', { network: 'TRON', health: 'down' }),
      ).toBeUndefined();
    });

    it('is left out of the OpenAPI document, as the health routes are', () => {
      const paths = Object.keys(buildOpenApiDocument(api.app as never).paths);
      expect(paths.filter((path) => /metrics|health/.test(path))).toEqual([]);
    });

    it('wants the bearer token when METRICS_TOKEN is set', async () => {
      const token = `metrics-${randomUUID()}`;
      const restore = withEnvironment({ METRICS_TOKEN: token });
      const guarded = await TestApi.start().finally(restore);
      try {
        const refused = await request(guarded.http).get('/metrics').expect(401);
        expect(refused.headers['www-authenticate']).toBe('Bearer');
        expect(refused.body.error).toMatchObject({
          type: 'authentication_error',
          code: 'authentication_failed',
        });
        await request(guarded.http)
          .get('/metrics')
          .set('Authorization', 'Bearer wrong')
          .expect(401);
        const allowed = await request(guarded.http)
          .get('/metrics')
          .set('Authorization', `Bearer ${token}`)
          .expect(200);
        expect(allowed.text).toContain('payments_http_requests_total');
        // Health stays open: a load balancer has no token.
        await request(guarded.http).get('/health/live').expect(200);
      } finally {
        await guarded.close();
      }
    });
  });

  /** What the gauges must show, read straight from PostgreSQL and Redis. */
  /** Pending deliveries whose time has come: a count that grows as retries fall due. */
  async function deliveriesDue(): Promise<number> {
    const [{ due }] = await api.dataSource.query(
      `SELECT count(*)::int AS due FROM webhook_deliveries
        WHERE status = 'Pending' AND next_attempt_at <= now()`,
    );
    return Number(due);
  }

  async function storedState() {
    const payouts: Array<{ network: string; status: string; count: number }> =
      await api.dataSource.query(
        `SELECT network, status, count(*)::int AS count FROM payouts
          WHERE status IN ('Pending', 'Processing') GROUP BY network, status`,
      );
    const pool = new Map<string, number>();
    for (const family of CHAIN_FAMILIES) {
      const fingerprint = api.app.get(PayAddressPool).fingerprintOf(family);
      const [{ count }] = await api.dataSource.query(
        `SELECT count(*)::int AS count FROM pay_addresses
          WHERE chain_family = $1 AND key_fingerprint = $2 AND claimed_at IS NULL`,
        [family, fingerprint],
      );
      pool.set(family, count);
    }
    const redis = new Redis(TEST_REDIS_URL);
    const payoutsWaiting = await redis.llen(`payments:sandbox:${QUEUES.payouts}:wait`);
    redis.disconnect();
    return {
      openPayouts: new Map(payouts.map((row) => [`${row.network}:${row.status}`, row.count])),
      deliveriesDue: await deliveriesDue(),
      pool,
      payoutsWaiting,
    };
  }
});
