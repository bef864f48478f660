import { deriveAddress, HdWallet } from '@app/chains';
import { DERIVATIONS_PER_TURN, PayAddressPool } from '@app/checkout';
import { TestApi, TestMerchant } from '../support/test-app';

const SESSIONS = '/v1/checkout/sessions';
const body = {
  pricing_amount: '5',
  pricing_currency: 'USD',
  currency: 'USDC',
  network: 'ETHEREUM',
};

describe('Pay-address pool', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let pool: PayAddressPool;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant();
    pool = api.app.get(PayAddressPool);
  });

  afterAll(() => api.close());

  const unclaimed = (family: string) =>
    api.count('pay_addresses', 'chain_family = $1 AND claimed_at IS NULL', [family]);

  it('refills a family up to the target with addresses derived from the configured key', async () => {
    await api.dataSource.query(`DELETE FROM pay_addresses WHERE claimed_at IS NULL`);
    expect(await pool.refill('EVM', 50, 10)).toBe(50);
    expect(await unclaimed('EVM')).toBe(50);
    // Above the low watermark nothing happens.
    expect(await pool.refill('EVM', 100, 10)).toBe(0);
    const rows: Array<{ derivation_index: number; address: string }> = await api.dataSource.query(
      `SELECT derivation_index, address FROM pay_addresses WHERE chain_family = 'EVM' AND claimed_at IS NULL`,
    );
    const xpub = api.app.get(HdWallet).accountFor('EVM').xpub;
    for (const row of rows.slice(0, 5)) {
      expect(row.address).toBe(deriveAddress('EVM', xpub, row.derivation_index));
    }
  });

  it('hands out pooled addresses, each to one session only, under concurrency', async () => {
    const before = await unclaimed('EVM');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.post(SESSIONS, merchant, body)),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);
    const addresses = responses.map((response) => response.body.pay_address);
    expect(new Set(addresses).size).toBe(20);
    // Processes claim in batches: at least these 20 left the shared pool.
    expect(await unclaimed('EVM')).toBeLessThanOrEqual(before - 20);
    const claimed = await api.count(
      'pay_addresses',
      'address = ANY($1) AND claimed_at IS NOT NULL',
      [addresses],
    );
    expect(claimed).toBe(20);
  });

  it('derives on the spot when the pool is empty, without reusing an index', async () => {
    await api.dataSource.query(`DELETE FROM pay_addresses WHERE claimed_at IS NULL`);
    const first = await api.post(SESSIONS, merchant, body).expect(201);
    const second = await api.post(SESSIONS, merchant, body).expect(201);
    expect(first.body.pay_address).not.toBe(second.body.pay_address);
    const rows: Array<{ derivation_index: number }> = await api.dataSource.query(
      `SELECT derivation_index FROM checkout_sessions WHERE id = ANY($1)`,
      [[first.body.id, second.body.id]],
    );
    expect(new Set(rows.map((row) => row.derivation_index)).size).toBe(2);
    // The counter moved past both, so a refill can never derive them again.
    await pool.refill('EVM', 5, 5);
    const reused = await api.count(
      'pay_addresses',
      "chain_family = 'EVM' AND derivation_index = ANY($1) AND claimed_at IS NULL",
      [rows.map((row) => row.derivation_index)],
    );
    expect(reused).toBe(0);
  });

  it('does not hand out addresses of another HD key', async () => {
    await api.dataSource.query(`DELETE FROM pay_addresses WHERE claimed_at IS NULL`);
    await api.dataSource.query(
      `INSERT INTO pay_addresses (chain_family, key_fingerprint, derivation_index, address)
       VALUES ('EVM', 'oldkeyfingerprnt', 0, '0x000000000000000000000000000000000000dEaD')`,
    );
    const { body: session } = await api.post(SESSIONS, merchant, body).expect(201);
    expect(session.pay_address).not.toBe('0x000000000000000000000000000000000000dEaD');
  });

  it('lets the event loop turn every few derivations, so other jobs never wait for a batch', async () => {
    await api.dataSource.query(`DELETE FROM pay_addresses WHERE claimed_at IS NULL`);
    const hdWallet = api.app.get(HdWallet);
    const derive = hdWallet.derive.bind(hdWallet);
    let sinceLastTurn = 0;
    let mostWithoutTurn = 0;
    const spy = jest.spyOn(hdWallet, 'derive').mockImplementation((family, index) => {
      sinceLastTurn += 1;
      mostWithoutTurn = Math.max(mostWithoutTurn, sinceLastTurn);
      return derive(family, index);
    });
    // Another job of the same process, which gets the event loop only between two turns.
    let refilling = true;
    const otherJob = (async () => {
      while (refilling) {
        await new Promise((resolve) => setImmediate(resolve));
        sinceLastTurn = 0;
      }
    })();
    try {
      expect(await pool.refill('EVM', 480, 480).finally(() => (refilling = false))).toBe(480);
      await otherJob;
    } finally {
      spy.mockRestore();
    }

    // Derivations the other job had to wait for at most (a batch of 480 before).
    expect(mostWithoutTurn).toBeLessThanOrEqual(DERIVATIONS_PER_TURN);
  });

  it('derives a shortfall once when two workers refill at the same moment', async () => {
    await api.dataSource.query(`DELETE FROM pay_addresses WHERE claimed_at IS NULL`);
    // Two refills racing, as two workers whose ticks coincide: one derives, the other finds the
    // lock taken (or, arriving later, a full pool) and adds nothing.
    const added = await Promise.all([pool.refill('EVM', 1200, 600), pool.refill('EVM', 1200, 600)]);

    expect(added.sort((a, b) => a - b)).toEqual([0, 1200]);
    expect(await unclaimed('EVM')).toBe(1200);
  });
});

describe('Pay-address pool under more concurrent requests than database connections', () => {
  let api: TestApi;
  let previousPoolSize: string | undefined;

  beforeAll(async () => {
    previousPoolSize = process.env.DATABASE_POOL_SIZE;
    process.env.DATABASE_POOL_SIZE = '3';
    api = await TestApi.start();
  });

  afterAll(async () => {
    await api.close();
    process.env.DATABASE_POOL_SIZE = previousPoolSize;
  });

  it('never deadlocks: every keyed creation completes, each with its own address', async () => {
    const merchant = await api.createMerchant();
    await api.app.get(PayAddressPool).refill('TRON', 30, 30);
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        api.post(
          SESSIONS,
          merchant,
          { ...body, network: 'TRON', currency: 'USDT' },
          { 'Idempotency-Key': `deadlock-${i}` },
        ),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(24).fill(201));
    expect(new Set(responses.map((response) => response.body.pay_address)).size).toBe(24);
  });
});
