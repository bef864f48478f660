import Decimal from 'decimal.js';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/database';
import { dropDatabase, migrateDatabase } from '@app/database/migrate';
import { compareAccounts, LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import { TEST_DATABASE_URL } from '../setup/test-database';

const MERCHANT = 'm_lock_order';
const available = LedgerAccounts.merchant(MERCHANT, null, 'TRON', 'USDT');
const held = LedgerAccounts.merchantHeld(MERCHANT, null, 'TRON', 'USDT');

/** A payout's hold: `merchant:` and `merchant_held:` in one posting. */
const hold = (reference: string): LedgerEntry => ({
  reference,
  kind: 'payout_hold',
  lines: [
    { account: available, amount: new Decimal(1), currency: 'USDT', network: 'TRON' },
    { account: held, amount: new Decimal(-1), currency: 'USDT', network: 'TRON' },
  ].map((line) => ({ ...line, merchantId: MERCHANT, subMerchantId: null })),
});

/*
 * Postings lock balance rows in byte order whatever the database's collation: on a database
 * created with an en-US collation (where `merchant_held:` sorts before `merchant:`) a hold still
 * locks `merchant:` first, as a batch locks it (compareAccounts) and as a release does.
 */
describe('Ledger lock order under a non-C collation', () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_en_us`;
  let dataSource: DataSource;
  let collated = true;

  beforeAll(async () => {
    await dropDatabase(url.toString());
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE "${url.pathname.slice(1)}" TEMPLATE template0 ENCODING 'UTF8'
           LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
      );
    } catch {
      // A server without ICU: the order is checked on the C database (weaker, still a check).
      collated = false;
      url.pathname = new URL(TEST_DATABASE_URL).pathname;
    } finally {
      await admin.end();
    }
    if (collated) await migrateDatabase(url.toString());
    dataSource = await new DataSource(
      buildDataSourceOptions({ url: url.toString(), poolSize: 4 }),
    ).initialize();
    await dataSource.query(
      `INSERT INTO merchants (id, kind, name) VALUES ($1, 'direct', 'Lock order') ON CONFLICT DO NOTHING`,
      [MERCHANT],
    );
  }, 180_000);

  afterAll(async () => {
    await dataSource?.destroy();
    if (collated) await dropDatabase(url.toString());
  });

  it("sorts accounts by bytes in code and in SQL, not by the database's collation", async () => {
    const accounts = [held, available, 'merchant:a', 'merchant_held:a', 'merchant:B'];
    const bytes = [...accounts].sort(compareAccounts);
    expect(bytes.indexOf(available)).toBeLessThan(bytes.indexOf(held));
    const sql = async (collation: string) =>
      (
        await dataSource.query(`SELECT a FROM unnest($1::text[]) AS a ORDER BY a ${collation}`, [
          accounts,
        ])
      ).map((row: { a: string }) => row.a);
    expect(await sql('COLLATE "C"')).toEqual(bytes);
    if (collated) expect(await sql('')).not.toEqual(bytes); // the database's own order differs
  });

  it('a hold locks merchant: before merchant_held:', async () => {
    const ledger = new LedgerService(dataSource);
    // Both balance rows exist.
    await dataSource.transaction((manager) => ledger.post(manager, hold(`lock:${Date.now()}:0`)));
    const blocker = dataSource.createQueryRunner();
    const poster = dataSource.createQueryRunner();
    const observer = dataSource.createQueryRunner();
    try {
      // merchant_held: is taken; the hold must then wait holding merchant: (byte order), not
      // wait before it (en-US order would take merchant_held: first).
      await blocker.startTransaction();
      await blocker.query(`SELECT 1 FROM ledger_balances WHERE account = $1 FOR UPDATE`, [held]);
      await poster.startTransaction();
      const posterPid = (await poster.query(`SELECT pg_backend_pid() AS pid`))[0].pid;
      const posting = ledger.post(poster.manager, hold(`lock:${Date.now()}:1`));
      const deadline = Date.now() + 20_000;
      for (;;) {
        const waiting = await dataSource.query(
          `SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted`,
          [posterPid],
        );
        if (waiting.length) break;
        if (Date.now() > deadline) throw new Error('the posting never waited for merchant_held:');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await observer.startTransaction();
      const taken = await observer
        .query(`SELECT 1 FROM ledger_balances WHERE account = $1 FOR UPDATE NOWAIT`, [available])
        .then(
          () => false,
          (error: { code?: string }) => error.code === '55P03', // lock_not_available
        );
      expect(taken).toBe(true);
      await observer.rollbackTransaction();
      await blocker.rollbackTransaction();
      expect(await posting).toBe(true);
      await poster.rollbackTransaction();
    } finally {
      for (const runner of [observer, blocker, poster]) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }
  });
});
