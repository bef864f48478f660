import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { EntityManager, QueryRunner } from 'typeorm';
import { MerchantsService } from '@app/auth';
import { LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import { creditBalance } from '../support/ledger-credit';
import {
  balanceOf,
  ledgerLines,
  OFFSET_TIMESTAMP,
  PAYOUT_ID,
  PAYOUTS,
  postPayout,
  randomEvmAddress,
  randomTronAddress,
  cleanUpPayouts,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

describe('Payouts: create, read, hold, idempotency', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let other: TestMerchant;
  const merchants: TestMerchant[] = [];

  const payoutsOf = (who: TestMerchant) => api.count('payouts', 'merchant_id = $1', [who.id]);
  const ledgerLinesOf = (who: TestMerchant) =>
    api.count('ledger_lines', 'merchant_id = $1', [who.id]);
  const fund = (who: TestMerchant, network: string, amount: string, currency = 'USDT') =>
    creditBalance(api.dataSource, { merchantId: who.id, network, currency, amount });
  const newMerchant = async (name: string) => {
    const created = await api.createMerchant({ name });
    merchants.push(created);
    return created;
  };

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await newMerchant('Acme Payouts');
    other = await newMerchant('Someone Else');
    await fund(merchant, 'TRON', '100');
    await fund(merchant, 'ETHEREUM', '100');
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', false);
  });

  afterAll(async () => {
    await cleanUpPayouts(api, merchants);
    await api.close();
  });

  describe('create', () => {
    it('returns every field of the payout, holds the amount and posts the hold entry', async () => {
      const toAddress = randomTronAddress();
      const before = Date.now();
      const response = await postPayout(api, merchant, {
        amount: '25.5',
        currency: 'USDT',
        network: 'TRON',
        to_address: toAddress,
        description: 'Withdrawal #8812',
        metadata: '{"user_id":"u_1842"}',
      }).expect(201);
      const payout = response.body;
      // fee = TRON's fixed 1 + 0.5 % of 25.5 (0.1275)
      expect(payout).toEqual({
        id: expect.stringMatching(PAYOUT_ID),
        status: 'Pending',
        livemode: false,
        amount: '25.5',
        fee: '1.1275',
        net_amount: '24.3725',
        currency: 'USDT',
        network: 'TRON',
        to_address: toAddress,
        description: 'Withdrawal #8812',
        metadata: '{"user_id":"u_1842"}',
        tx_hash: null,
        error_reason: null,
        pending_reason: null,
        reviewed_by: null,
        reviewed_at: null,
        completed_at: null,
        created_at: expect.stringMatching(OFFSET_TIMESTAMP),
        sub_merchant_code: null,
        batch_id: null,
      });
      expect(response.headers['request-id']).toMatch(/^req_/);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect(Date.parse(payout.created_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(payout.created_at)).toBeLessThanOrEqual(Date.now() + 1000);

      expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
        available: '74.5',
        held: '25.5',
      });
      expect(await ledgerLines(api, `payout:${payout.id}:hold`)).toEqual([
        {
          kind: 'payout_hold',
          account: LedgerAccounts.merchant(merchant.id, null, 'TRON', 'USDT'),
          amount: '25.5',
        },
        {
          kind: 'payout_hold',
          account: LedgerAccounts.merchantHeld(merchant.id, null, 'TRON', 'USDT'),
          amount: '-25.5',
        },
      ]);
      const read = await api.get(`${PAYOUTS}/${payout.id}`, merchant).expect(200);
      expect(read.body).toEqual(payout);
    });

    it('stores the fee rule on the payout: a later policy change does not alter it', async () => {
      const { body: payout } = await postPayout(api, merchant, {
        amount: '10',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      }).expect(201);
      // fee = ETHEREUM's fixed 3 + 0.5 % of 10
      expect(payout).toMatchObject({ amount: '10', fee: '3.05', net_amount: '6.95' });
      const [row] = await api.dataSource.query(
        `SELECT trim_scale(fee_percent)::text AS fee_percent, trim_scale(fee_fixed)::text AS fee_fixed,
                chain_family, token_contract, token_decimals
           FROM payouts WHERE id = $1`,
        [payout.id],
      );
      expect(row).toEqual({
        fee_percent: '0.5',
        fee_fixed: '3',
        chain_family: 'EVM',
        token_contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        token_decimals: 6,
      });
      const other = await newMerchant('Policy Changer');
      await fund(other, 'ETHEREUM', '50');
      const policy = api.app.get(MerchantsService);
      await policy.setPayoutPolicy(other.id, '2', false);
      const { body: before } = await postPayout(api, other, {
        amount: '10',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      }).expect(201);
      expect(before).toMatchObject({ fee: '3.2', net_amount: '6.8' });
      await policy.setPayoutPolicy(other.id, null, false);
      expect((await api.get(`${PAYOUTS}/${before.id}`, other).expect(200)).body).toEqual(before);
      const { body: after } = await postPayout(api, other, {
        amount: '10',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: randomEvmAddress(),
      }).expect(201);
      // The default percent (PAYOUT_FEE_PERCENT, 0) now: the network's fixed fee only.
      expect(after).toMatchObject({ fee: '3', net_amount: '7' });
    });

    it('accepts an all-lowercase EVM address and returns it checksummed', async () => {
      const address = randomEvmAddress();
      const { body } = await postPayout(api, merchant, {
        amount: '5',
        currency: 'USDT',
        network: 'ETHEREUM',
        to_address: address.toLowerCase(),
      }).expect(201);
      expect(body.to_address).toBe(address);
    });

    it('spends the whole available balance down to zero, and not a micro-unit more', async () => {
      const exact = await newMerchant('Exact');
      await fund(exact, 'TRON', '12.000001');
      const body = { amount: '12.000002', currency: 'USDT', network: 'TRON' };
      await postPayout(api, exact, { ...body, to_address: randomTronAddress() }).expect(422);
      await postPayout(api, exact, {
        ...body,
        amount: '12.000001',
        to_address: randomTronAddress(),
      }).expect(201);
      expect(await balanceOf(api, exact, 'TRON', 'USDT')).toEqual({
        available: '0',
        held: '12.000001',
      });
    });
  });

  describe('Idempotency-Key', () => {
    const body = () => ({
      amount: '2',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    });

    it('is required: without it, 400 parameter_missing and nothing is created', async () => {
      const before = await payoutsOf(merchant);
      const { body: error } = await api.post(PAYOUTS, merchant, body()).expect(400);
      expect(error).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'parameter_missing',
          message: expect.stringContaining('Idempotency-Key'),
          param: 'Idempotency-Key',
          request_id: expect.stringMatching(/^req_/),
        },
      });
      expect(await payoutsOf(merchant)).toBe(before);
    });

    it.each([
      ['empty', ''],
      ['too long', 'k'.repeat(256)],
      ['non-ASCII', 'clé-ü'],
      ['with a space', 'two words'],
    ])('refuses a %s key with 400 parameter_invalid', async (_name, key) => {
      const before = await payoutsOf(merchant);
      const { body: error } = await api
        .post(PAYOUTS, merchant, body(), { 'Idempotency-Key': key })
        .expect(400);
      expect(error.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
      expect(await payoutsOf(merchant)).toBe(before);
    });

    it('replays the same payout for the same key and body, holding the funds once', async () => {
      const key = randomUUID();
      const request = body();
      const balanceBefore = await balanceOf(api, merchant, 'TRON', 'USDT');
      const first = await postPayout(api, merchant, request, { 'Idempotency-Key': key }).expect(
        201,
      );
      const again = await postPayout(api, merchant, request, { 'Idempotency-Key': key }).expect(
        201,
      );
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const reordered = Object.fromEntries(Object.entries(request).reverse());
      const third = await postPayout(api, merchant, reordered, { 'Idempotency-Key': key }).expect(
        201,
      );
      expect(third.body).toEqual(first.body);
      expect(await api.count('payouts', 'id = $1', [first.body.id])).toBe(1);
      expect(
        await api.count('ledger_entries', 'reference LIKE $1', [`payout:${first.body.id}:%`]),
      ).toBe(1);
      expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
        available: new Decimal(balanceBefore!.available).minus(2).toFixed(),
        held: new Decimal(balanceBefore!.held).plus(2).toFixed(),
      });
    });

    it('refuses the same key with another body with 409 idempotency_key_reused', async () => {
      const key = randomUUID();
      const request = body();
      await postPayout(api, merchant, request, { 'Idempotency-Key': key }).expect(201);
      const before = await payoutsOf(merchant);
      const { body: error } = await postPayout(
        api,
        merchant,
        { ...request, amount: '3' },
        { 'Idempotency-Key': key },
      ).expect(409);
      expect(error.error).toMatchObject({
        type: 'idempotency_error',
        code: 'idempotency_key_reused',
        param: 'Idempotency-Key',
      });
      expect(await payoutsOf(merchant)).toBe(before);
    });

    it('scopes keys per merchant: the same key under two merchants is two payouts', async () => {
      const key = randomUUID();
      await fund(other, 'TRON', '5');
      const a = await postPayout(api, merchant, body(), { 'Idempotency-Key': key }).expect(201);
      const b = await postPayout(api, other, body(), { 'Idempotency-Key': key }).expect(201);
      expect(b.body.id).not.toBe(a.body.id);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('insufficient balance', () => {
    it('is a 422 that writes nothing, and the key can be used again once funded', async () => {
      const poor = await newMerchant('Poor');
      await fund(poor, 'TRON', '5');
      const key = randomUUID();
      const request = {
        amount: '10',
        currency: 'USDT',
        network: 'TRON',
        to_address: randomTronAddress(),
      };
      const linesBefore = await ledgerLinesOf(poor);
      const { body: error } = await postPayout(api, poor, request, {
        'Idempotency-Key': key,
      }).expect(422);
      expect(error).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'insufficient_balance',
          message: 'Insufficient balance: 5 USDT available on TRON, 10 requested.',
          param: 'amount',
          request_id: expect.stringMatching(/^req_/),
        },
      });
      expect(await payoutsOf(poor)).toBe(0);
      expect(await ledgerLinesOf(poor)).toBe(linesBefore);
      expect(await api.count('idempotency_keys', 'merchant_id = $1', [poor.id])).toBe(0);
      expect(await balanceOf(api, poor, 'TRON', 'USDT')).toEqual({ available: '5', held: '0' });

      await fund(poor, 'TRON', '20');
      const response = await postPayout(api, poor, request, { 'Idempotency-Key': key }).expect(201);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect(await balanceOf(api, poor, 'TRON', 'USDT')).toEqual({ available: '15', held: '10' });
    });

    it('counts only the balance of the same network and currency', async () => {
      const elsewhere = await newMerchant('Funded Elsewhere');
      await fund(elsewhere, 'ETHEREUM', '500');
      await fund(elsewhere, 'TRON', '500');
      await fund(elsewhere, 'BSC', '500', 'USDC');
      const { body: error } = await postPayout(api, elsewhere, {
        amount: '10',
        currency: 'USDT',
        network: 'BSC',
        to_address: randomEvmAddress(),
      }).expect(422);
      expect(error.error).toMatchObject({ code: 'insufficient_balance', param: 'amount' });
      expect(await payoutsOf(elsewhere)).toBe(0);
    });
  });

  describe('tenancy', () => {
    it("answers another merchant's payout id with 404, exactly like an unknown one, and never lists it", async () => {
      const { body: payout } = await postPayout(api, merchant, {
        amount: '2',
        currency: 'USDT',
        network: 'TRON',
        to_address: randomTronAddress(),
      }).expect(201);
      const theirs = await api.get(`${PAYOUTS}/${payout.id}`, other).expect(404);
      expect(theirs.body).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such payout: '${payout.id}'.`,
          param: 'id',
          request_id: expect.stringMatching(/^req_/),
        },
      });
      const unknown = await api.get(`${PAYOUTS}/po_0000000000000000000000`, other).expect(404);
      expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      const listed = await api.get(`${PAYOUTS}?page_size=100`, other).expect(200);
      expect(listed.body.map((item: { id: string }) => item.id)).not.toContain(payout.id);
      const searched = await api.get(`${PAYOUTS}?search_text=${payout.id}`, other).expect(200);
      expect(searched.body).toEqual([]);
      expect(searched.headers['x-total-count']).toBe('0');
    });
  });

  describe('ledger: entries balance per currency and network', () => {
    type Line = [currency: string, network: string, amount: string];
    /**
     * Writes an entry by SQL in one transaction: its lines in one statement each group of
     * `statements` (by default all of them in one, as LedgerService writes them).
     */
    const postBySql = async (reference: string, ...statements: Line[][]) => {
      const runner = api.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        const [entry] = await runner.query(
          `INSERT INTO ledger_entries (reference, kind) VALUES ($1, 'test') RETURNING id`,
          [reference],
        );
        for (const lines of statements) {
          await runner.query(
            `INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
             SELECT $1, $2 || ':' || l.network || ':' || l.currency, l.currency, l.network, l.amount
               FROM unnest($3::text[], $4::text[], $5::numeric[]) AS l(currency, network, amount)`,
            [
              entry.id,
              `test:${reference}`,
              lines.map(([currency]) => currency),
              lines.map(([, network]) => network),
              lines.map(([, , amount]) => amount),
            ],
          );
        }
        await runner.commitTransaction();
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        await runner.release();
      }
    };
    /**
     * Scans of `table` by this connection so far. pg_stat_xact_* also holds its earlier
     * transactions' counts not yet reported: what a statement adds is a difference, read within
     * one transaction.
     */
    const scansOf = async (runner: QueryRunner, table: string): Promise<number> => {
      const [row] = await runner.query(
        `SELECT seq_scan + COALESCE(idx_scan, 0) AS scans
           FROM pg_stat_xact_user_tables WHERE relname = $1`,
        [table],
      );
      return Number(row.scans);
    };
    /** Runs `work` in a transaction on a connection of its own, rolled back afterwards. */
    const rolledBack = async (work: (runner: QueryRunner) => Promise<void>): Promise<void> => {
      const runner = api.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await work(runner);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    };
    const written = async (reference: string) => ({
      entries: await api.count('ledger_entries', 'reference = $1', [reference]),
      balances: await api.count('ledger_balances', 'account LIKE $1', [`test:${reference}:%`]),
    });

    it.each([
      ['two currencies on one network', 'USDC', 'TRON'],
      ['one currency on two networks', 'USDT', 'ETHEREUM'],
    ])('refuses an entry mixing %s, even if it sums to zero', async (_name, c, n) => {
      const reference = `test_unbalanced:${randomUUID()}`;
      await expect(
        postBySql(reference, [
          ['USDT', 'TRON', '10'],
          [c, n, '-10'],
        ]),
      ).rejects.toThrow(/does not balance per currency and network/);
      expect(await written(reference)).toEqual({ entries: 0, balances: 0 });
    });

    it('commits a balanced entry written the same way (the check is not over-eager)', async () => {
      const reference = `test_balanced:${randomUUID()}`;
      await postBySql(reference, [
        ['USDT', 'TRON', '10'],
        ['USDT', 'TRON', '-10'],
      ]);
      expect(await written(reference)).toEqual({ entries: 1, balances: 1 });
    });

    it('checks every statement: an entry is balanced after each, so its lines come in one', async () => {
      const split = `test_unbalanced:${randomUUID()}`;
      await expect(
        postBySql(split, [['USDT', 'TRON', '10']], [['USDT', 'TRON', '-10']]),
      ).rejects.toThrow(/does not balance per currency and network/);
      const added = `test_unbalanced:${randomUUID()}`;
      await expect(
        postBySql(
          added,
          [
            ['USDT', 'TRON', '10'],
            ['USDT', 'TRON', '-10'],
          ],
          [['USDT', 'TRON', '5']],
        ),
      ).rejects.toThrow(/does not balance per currency and network/);
      expect([await written(split), await written(added)]).toEqual([
        { entries: 0, balances: 0 },
        { entries: 0, balances: 0 },
      ]);
    });

    it('checks a statement by its own lines: writing an entry reads no line back', async () => {
      // A backlog's settlement writes thousands of lines in one statement; reading the entries'
      // lines back (a join the planner cannot size) cost more than writing them.
      await rolledBack(async (runner) => {
        const lineScans = () => scansOf(runner, 'ledger_lines');
        const [entry] = await runner.query(
          `INSERT INTO ledger_entries (reference, kind) VALUES ($1, 'test') RETURNING id`,
          [`test_balanced:${randomUUID()}`],
        );
        const before = await lineScans();
        await runner.query(
          `INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
           SELECT $1, $2 || n, 'USDT', 'TRON', amount
             FROM unnest(ARRAY['10', '-10']::numeric[]) WITH ORDINALITY AS l(amount, n)`,
          [entry.id, `test:${randomUUID()}:`],
        );
        expect(await lineScans()).toBe(before);
      });
    });

    it('refuses a line whose entry does not exist, with the foreign key SQLSTATE', async () => {
      const [{ next }] = await api.dataSource.query(
        `SELECT COALESCE(max(id), 0) + 1000000 AS next FROM ledger_entries`,
      );
      const error = await api.dataSource
        .query(
          `INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
           VALUES ($1, $2, 'USDT', 'TRON', 10), ($1, $3, 'USDT', 'TRON', -10)`,
          [next, `test:${randomUUID()}:a`, `test:${randomUUID()}:b`],
        )
        .catch((caught: { driverError?: { code?: string } }) => caught);
      expect(error.driverError?.code).toBe('23503');
    });

    it("checks the lines' entries once per statement, not once per line", async () => {
      // A block's settlement writes thousands of lines in one statement: a foreign key's query
      // per line (through a plan kept from when the ledger was small) cost most of it.
      await rolledBack(async (runner) => {
        const entryScans = () => scansOf(runner, 'ledger_entries');
        const entries: Array<{ id: string }> = await runner.query(
          `INSERT INTO ledger_entries (reference, kind)
           SELECT $1 || n, 'test' FROM generate_series(1, 20) AS n RETURNING id`,
          [`test_balanced:${randomUUID()}:`],
        );
        const before = await entryScans();
        await runner.query(
          `INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
           SELECT e.id, $2 || e.id || ':' || side, 'USDT', 'TRON', amount
             FROM unnest($1::bigint[]) AS e(id),
                  unnest(ARRAY['10', '-4', '-6']::numeric[]) WITH ORDINALITY AS l(amount, side)`,
          [entries.map((entry) => entry.id), `test:${randomUUID()}:`],
        );
        // 60 lines of 20 entries: a foreign key queried the entries once per line (60); the check
        // looks each entry up at most once (one scan, or one index probe per entry: the plan
        // depends on the table's size).
        expect((await entryScans()) - before).toBeLessThanOrEqual(20);
      });
    });

    it('LedgerService.post refuses such an entry before writing anything', async () => {
      const query = jest.fn();
      const entry: LedgerEntry = {
        reference: `test_unbalanced:${randomUUID()}`,
        kind: 'test',
        lines: [
          {
            account: 'deposits:TRON:USDT',
            amount: new Decimal(10),
            currency: 'USDT',
            network: 'TRON',
          },
          {
            account: 'deposits:TRON:USDC',
            amount: new Decimal(-10),
            currency: 'USDC',
            network: 'TRON',
          },
        ],
      };
      await expect(
        api.app.get(LedgerService).post({ query } as unknown as EntityManager, entry),
      ).rejects.toThrow(
        new RegExp(`^Ledger entry ${entry.reference} does not balance in USD[TC] on TRON`),
      );
      expect(query).not.toHaveBeenCalled();
    });
  });
});
