import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { PayoutReviews } from '@app/payouts';
import { creditBalance } from '../support/ledger-credit';
import { balanceOf, cleanUpPayouts, postPayout, randomTronAddress } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

/** Many requests at once on one balance or one key: what the locks must make exact. */
describe('Payouts: concurrency', () => {
  let api: TestApi;
  const merchants: TestMerchant[] = [];

  const tron = (amount: string) => ({
    amount,
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
  });
  const funded = async (name: string, amount: string) => {
    const merchant = await api.createMerchant({ name });
    merchants.push(merchant);
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount,
    });
    return merchant;
  };
  const newPayout = async (merchant: TestMerchant, body: Record<string, unknown>) =>
    (await postPayout(api, merchant, body).expect(201)).body as { id: string };

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(async () => {
    await cleanUpPayouts(api, merchants);
    await api.close();
  });

  it('creates exactly one payout and one hold for 50 concurrent requests with one key', async () => {
    const racer = await funded('Racer', '1000');
    const key = randomUUID();
    const request = tron('7');
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => postPayout(api, racer, request, { 'Idempotency-Key': key })),
    );
    const created = responses.filter((response) => response.status === 201);
    const inProgress = responses.filter((response) => response.status === 409);
    expect(created.length + inProgress.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((response) => response.body.id));
    expect(ids.size).toBe(1);
    for (const response of inProgress) {
      expect(response.body.error.code).toBe('idempotency_in_progress');
      expect(response.headers['retry-after']).toBe('1');
    }
    const [id] = ids;
    expect(await api.count('payouts', 'merchant_id = $1', [racer.id])).toBe(1);
    expect(await api.count('ledger_entries', 'reference LIKE $1', [`payout:${id}:%`])).toBe(1);
    expect(await balanceOf(api, racer, 'TRON', 'USDT')).toEqual({ available: '993', held: '7' });
    const after = await postPayout(api, racer, request, { 'Idempotency-Key': key }).expect(201);
    expect(after.body.id).toBe(id);
  });

  it.each([
    [100, 10],
    [95, 9],
  ])(
    'lets exactly the payouts the balance covers through when 20 race (balance %i)',
    async (balance, expected) => {
      const busy = await funded(`Busy ${balance}`, String(balance));
      const snapshots: Array<{ available: string; held: string } | undefined> = [];
      let racing = true;
      const watcher = (async () => {
        while (racing) snapshots.push(await balanceOf(api, busy, 'TRON', 'USDT'));
      })();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => postPayout(api, busy, tron('10'))),
      );
      racing = false;
      await watcher;
      const created = responses.filter((response) => response.status === 201);
      const refused = responses.filter((response) => response.status !== 201);
      expect(created).toHaveLength(expected);
      for (const response of refused) {
        expect(response.status).toBe(422);
        expect(response.body.error.code).toBe('insufficient_balance');
      }
      const held = new Decimal(10 * expected);
      expect(await balanceOf(api, busy, 'TRON', 'USDT')).toEqual({
        available: new Decimal(balance).minus(held).toFixed(),
        held: held.toFixed(),
      });
      const [sum] = await api.dataSource.query(
        `SELECT count(*)::int AS count, trim_scale(sum(amount))::text AS total
           FROM payouts WHERE merchant_id = $1`,
        [busy.id],
      );
      expect(sum).toEqual({ count: expected, total: held.toFixed() });
      // Every balance seen while they raced was consistent: never negative, never more than funded.
      for (const snapshot of snapshots) {
        expect(new Decimal(snapshot!.available).isNegative()).toBe(false);
        expect(new Decimal(snapshot!.available).plus(snapshot!.held).toFixed()).toBe(
          String(balance),
        );
      }
    },
    60_000,
  );

  it('leaves nothing of a refused payout when its hold loses the race, and replays every key exactly', async () => {
    // The hold is the creation's last statement (it takes the balance lock): the payout row, its
    // event and the console hook come before it, and a refused hold must roll all of them back.
    const racer = await funded('Late hold', '95');
    const requests = Array.from({ length: 20 }, () => ({ key: randomUUID(), body: tron('10') }));
    const responses = await Promise.all(
      requests.map(({ key, body }) => postPayout(api, racer, body, { 'Idempotency-Key': key })),
    );
    const created = responses.filter((response) => response.status === 201);
    expect(created).toHaveLength(9);
    expect(responses.filter((response) => response.status === 422)).toHaveLength(11);
    const count = (table: string, where: string) =>
      api.count(table, `merchant_id = $1 AND ${where}`, [racer.id]);
    expect(await count('payouts', 'true')).toBe(9);
    expect(await count('events', `type = 'payout.created'`)).toBe(9);
    expect(await count('idempotency_keys', `endpoint = 'POST /v1/payouts'`)).toBe(9);
    const [holds] = await api.dataSource.query(
      `SELECT count(*)::int AS count FROM ledger_entries
        WHERE reference IN (SELECT 'payout:' || id || ':hold' FROM payouts WHERE merchant_id = $1)`,
      [racer.id],
    );
    expect(holds.count).toBe(9);
    expect(await balanceOf(api, racer, 'TRON', 'USDT')).toEqual({ available: '5', held: '90' });

    // Funded again: every key replays what it got (the created ones), or runs now (the refused).
    await creditBalance(api.dataSource, {
      merchantId: racer.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '110',
    });
    const again = await Promise.all(
      requests.map(({ key, body }) => postPayout(api, racer, body, { 'Idempotency-Key': key })),
    );
    again.forEach((response, index) => {
      expect(response.status).toBe(201);
      if (responses[index].status === 201) expect(response.body).toEqual(responses[index].body);
    });
    expect(new Set(again.map((response) => response.body.id)).size).toBe(20);
    expect(await count('payouts', 'true')).toBe(20);
    expect(await count('events', `type = 'payout.created'`)).toBe(20);
    expect(await balanceOf(api, racer, 'TRON', 'USDT')).toEqual({ available: '5', held: '200' });
  }, 60_000);

  it('never deadlocks a release against holds on the same balance', async () => {
    const busy = await funded('Busy', '1000');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await newPayout(busy, tron('10'))).id);
    // Releases lock the held then the available balance row unless the ledger orders its
    // locks; holds lock available then held. Racing them deadlocked before it did.
    const results = await Promise.allSettled([
      ...ids.map((id) => api.app.get(PayoutReviews).reject(id, 'frank', 'race')),
      ...ids.map(() => newPayout(busy, tron('10'))),
    ]);
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(await balanceOf(api, busy, 'TRON', 'USDT')).toEqual({
      available: '800',
      held: '200',
    });
  });
});
