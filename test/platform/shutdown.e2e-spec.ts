import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { Client } from 'pg';
import { useChainEnvironment } from '../support/chain-test-env';
import { buildApp } from '../support/built-apps';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { creditBalance } from '../support/ledger-credit';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { postPayout, randomEvmAddress } from '../support/payouts-api';
import { freePort, PrivatePostgres, PrivateRedis } from '../support/private-services';
import { httpGet, refusesConnections, SpawnedApp, waitForHttp } from '../support/spawned-app';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
const SHUTDOWN_TIMEOUT_MS = 20_000;
const ACTIVE_PAYOUT_JOBS = /^payments_queue_jobs\{queue="payouts",state="active"\} [1-9]\d*$/m;
const SESSION = {
  pricing_amount: '10',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'ETHEREUM',
  success_url: 'https://shop.example.com/thanks',
  cancel_url: 'https://shop.example.com/cart',
};

/** A loopback webhook receiver that holds every request until the test lets it answer. */
class HeldReceiver {
  readonly held: ServerResponse[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<HeldReceiver> {
    const server = createServer();
    const receiver = new HeldReceiver(server);
    server.on('request', (request, response) => {
      request.resume();
      request.on('end', () => receiver.held.push(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  answerAll(): void {
    for (const response of this.held.splice(0)) response.writeHead(200).end('ok');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/*
 * SIGTERM to the real processes (`node dist/...`, built as production builds them), on a private
 * PostgreSQL and Redis so no other suite's jobs or rows are in reach. A row lock held by the test
 * makes a request or a job last exactly as long as the test wants.
 */
describe('Graceful shutdown', () => {
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let devnet: Devnet;
  let receiver: HeldReceiver;
  let environment: ReturnType<typeof useChainEnvironment>;
  let api: TestApi;
  let merchant: TestMerchant;
  let locker: Client;
  let observer: Client;

  beforeAll(async () => {
    [postgres, redis, devnet, receiver] = await Promise.all([
      PrivatePostgres.start(),
      PrivateRedis.start(),
      startDevnet(),
      HeldReceiver.start(),
      buildApp('api'),
      buildApp('worker'),
    ]).then(([pg, r, d, h]) => [pg, r, d, h] as const);
    environment = useChainEnvironment(devnet.networksFileJson({ confirmations: 1 }), {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      PAY_ADDRESS_POOL_TARGET: '50',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    // Test data through the in-process API on the same private services.
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Shutdown Shop' });
    // One connection holds locks in a transaction; another watches (pg_stat_activity is a
    // snapshot for the length of a transaction).
    locker = new Client({ connectionString: postgres.url });
    observer = new Client({ connectionString: postgres.url });
    await Promise.all([locker.connect(), observer.connect()]);
  });

  afterAll(async () => {
    await SpawnedApp.killAll();
    await Promise.all(
      [locker?.end(), observer?.end()].map((ending) => ending?.catch(() => undefined)),
    );
    await api?.close();
    environment?.restore();
    await Promise.all([receiver?.stop(), devnet?.stop(), redis?.remove(), postgres?.remove()]);
  });

  const auth = () => ({ Authorization: `Bearer ${merchant.apiKey}` });

  /** Holds `sql`'s locks in an open transaction until the returned release is called. */
  async function holdLock(sql: string, params: unknown[] = []): Promise<() => Promise<void>> {
    await locker.query('BEGIN');
    await locker.query(sql, params);
    return async () => {
      await locker.query('COMMIT');
    };
  }

  /** Waits until a query of another connection waits for a lock on `table`. */
  const waitForLockWait = (table: string) =>
    waitFor(
      async () => {
        const { rows } = await observer.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query ILIKE $1`,
          [`%${table}%`],
        );
        return rows[0].waiting > 0;
      },
      30_000,
      `a query waiting for a lock on ${table}`,
    );

  /** A failed wait says what the process logged. */
  async function explainFailure(app: SpawnedApp, wait: () => Promise<void>): Promise<void> {
    try {
      await wait();
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- process output ---\n${app.log}`);
    }
  }

  async function startApi(
    env: Record<string, string> = {},
  ): Promise<{ app: SpawnedApp; port: number }> {
    const port = await freePort();
    const app = SpawnedApp.start('api', { PORT: String(port), ...env });
    await waitForHttp(app, port, '/health/live');
    return { app, port };
  }

  /** An idle keep-alive connection: one request answered, the socket left open. */
  async function idleKeepAliveSocket(
    port: number,
  ): Promise<{ socket: Socket; closed: () => boolean; received: () => string }> {
    const socket = connect(port, '127.0.0.1');
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    await waitFor(async () => received.includes('"status":"ok"'), 10_000, 'the keep-alive answer');
    return { socket, closed: () => closed, received: () => received };
  }

  it("API: keeps an idle connection open longer than a load balancer's 60 s", async () => {
    const { app, port } = await startApi();
    const idle = await idleKeepAliveSocket(port);
    // Node announces its keepAliveTimeout to the client; its default, 5 s, is below every
    // balancer's idle timeout, so a balancer would reuse connections the API had just closed.
    expect(idle.received()).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i);
    idle.socket.destroy();
    app.child.kill('SIGKILL');
    await app.exited;
  });

  it('API: finishes the request in flight, refuses new connections, closes idle ones, exits 0', async () => {
    const { app, port } = await startApi();
    const session = (await api.post(SESSIONS, merchant, SESSION).expect(201)).body;
    const idle = await idleKeepAliveSocket(port);

    const release = await holdLock('LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE');
    const slow = httpGet(port, `${SESSIONS}/${session.id}`, auth());
    await waitForLockWait('checkout_sessions');

    const signalled = Date.now();
    app.child.kill('SIGTERM');
    await waitFor(() => refusesConnections(port), 10_000, 'new connections refused');
    await waitFor(async () => idle.closed(), 10_000, 'the idle keep-alive socket closed');
    expect(app.running).toBe(true);

    await release();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).id).toBe(session.id);
    expect(answer.headers.connection).toBe('close');

    const exit = await app.exited;
    expect({ ...exit, log: exit.code === 0 ? '' : app.log }).toEqual({
      code: 0,
      signal: null,
      log: '',
    });
    expect(Date.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
  });

  it('API: exits within SHUTDOWN_TIMEOUT_MS when a request never finishes, with code 1', async () => {
    const { app, port } = await startApi({ SHUTDOWN_TIMEOUT_MS: '2000' });
    const session = (await api.post(SESSIONS, merchant, SESSION).expect(201)).body;
    const release = await holdLock('LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE');
    try {
      const stuck = httpGet(port, `${SESSIONS}/${session.id}`, auth()).catch(
        (error: Error) => error,
      );
      await waitForLockWait('checkout_sessions');
      const signalled = Date.now();
      app.child.kill('SIGTERM');
      const exit = await app.exited;
      expect(exit).toEqual({ code: 1, signal: null });
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
      expect(Date.now() - signalled).toBeLessThan(10_000);
      // Its connection went with the process.
      expect(String(await stuck)).toMatch(/socket hang up|ECONNRESET/);
    } finally {
      await release();
    }
  });

  it('worker: takes no new work, finishes the payout send and webhook attempt in flight, exits 0', async () => {
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '100',
    });
    await api.post('/v1/webhook-endpoints', merchant, { url: receiver.url }).expect(201);
    const newPayout = async () =>
      (
        await postPayout(api, merchant, {
          amount: '5',
          currency: 'USDT',
          network: 'ETHEREUM',
          to_address: randomEvmAddress(),
        }).expect(201)
      ).body as { id: string; to_address: string };

    const metricsPort = await freePort();
    const worker = SpawnedApp.start('worker', {
      WORKER_METRICS_PORT: String(metricsPort),
      // Its log says when the signal has been taken (a signal is delivered asynchronously).
      LOG_LEVEL: 'info',
    });
    // The send in flight waits on the hot wallet's row, which the test holds. Not the payout's
    // row: a claim leases its payouts with SKIP LOCKED and would pass a locked one by. Taken
    // once the worker has registered the wallet, whose start would otherwise wait on it.
    await explainFailure(worker, () =>
      waitFor(
        async () => worker.log.includes('"msg":"Hot wallets registered"'),
        120_000,
        'the hot wallet registered',
      ),
    );
    const release = await holdLock(
      `SELECT 1 FROM hot_wallets WHERE network = 'ETHEREUM' FOR UPDATE`,
    );
    const inFlight = await newPayout();
    await explainFailure(worker, async () => {
      await waitForLockWait('hot_wallets');
      await waitFor(async () => receiver.held.length > 0, 30_000, 'a webhook attempt in flight');
    });

    // Its own metrics listener shows the job in flight. The payouts queue also runs the tracker's
    // and the reconciler's jobs, so one of those may be active beside it; and a scrape whose Redis
    // read was slow (a loaded machine) leaves the queue gauges out until the next refresh.
    let metrics = await httpGet(metricsPort, '/metrics');
    await waitFor(
      async () => {
        metrics = await httpGet(metricsPort, '/metrics');
        return ACTIVE_PAYOUT_JOBS.test(metrics.body);
      },
      30_000,
      'the job in flight in the metrics',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- last scrape ---\n${metrics.body}`);
    });
    expect(metrics.status).toBe(200);
    expect((await httpGet(metricsPort, '/health/live')).status).toBe(200);

    worker.child.kill('SIGTERM');
    await waitFor(
      async () => worker.log.includes('"msg":"Shutting down"'),
      10_000,
      'the signal taken',
    );
    // Work arriving now is left for the next worker: a payout send job and a webhook.
    const afterSignal = await newPayout();
    expect(worker.running).toBe(true);

    await release();
    receiver.answerAll();
    const exit = await worker.exited;
    expect({ ...exit, log: exit.code === 0 ? '' : worker.log }).toEqual({
      code: 0,
      signal: null,
      log: '',
    });

    // The send in flight went through: journaled, broadcast, on chain once.
    expect(await refusesConnections(metricsPort)).toBe(true);
    const [sent] = await api.dataSource.query(`SELECT status, tx_hash FROM payouts WHERE id = $1`, [
      inFlight.id,
    ]);
    expect(sent.status).toMatch(/^(Processing|Completed)$/);
    const transfers = await transfersFrom(devnet, 'USDT', DEVNET_ACCOUNTS.hotWallet.address);
    expect(transfers.filter((transfer) => transfer.to === inFlight.to_address)).toEqual([
      expect.objectContaining({ txHash: sent.tx_hash }),
    ]);
    // The webhook attempt in flight was recorded. It was for the payout's first event: its send,
    // and so every later event of it (written as the send went on during the shutdown, never
    // attempted), waited on the hot wallet's row. Rows in event order: without ORDER BY, the first row of
    // the payout was sometimes a later event's delivery, still Pending.
    const deliveries: Array<{ object_id: string; status: string; attempt_count: number }> =
      await api.dataSource.query(
        `SELECT e.object_id, d.status, d.attempt_count
           FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
          ORDER BY e.object_id, e.sequence`,
      );
    expect(deliveries.find((d) => d.object_id === inFlight.id)).toMatchObject({
      status: 'Succeeded',
      attempt_count: 1,
    });
    // Nothing that arrived after the signal was touched.
    const [late] = await api.dataSource.query(
      `SELECT status, (SELECT count(*)::int FROM payout_attempts WHERE payout_id = $1) AS attempts
         FROM payouts WHERE id = $1`,
      [afterSignal.id],
    );
    expect(late).toEqual({ status: 'Pending', attempts: 0 });
    expect(deliveries.find((d) => d.object_id === afterSignal.id)).toMatchObject({
      status: 'Pending',
      attempt_count: 0,
    });
    expect(receiver.held).toHaveLength(0);
  });
});
