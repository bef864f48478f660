import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import { LedgerService } from '@app/ledger';
import {
  reclassify,
  TreasuryBooks1765900000000,
} from '../../libs/database/src/migrations/1765900000000-treasury-books';
import { TestApi } from '../support/test-app';

// A network name of this suite only: its payouts_sent history is the only one in the database.
const NETWORK = 'RECLASSTEST';

/** Migration 1765900000000 on a ledger with payouts_sent history (completed payouts before it). */
describe('Reclassifying payouts_sent into hot_wallet (migration 1765900000000)', () => {
  let api: TestApi;
  let dataSource: DataSource;

  beforeAll(async () => {
    api = await TestApi.start();
    dataSource = api.dataSource;
  });

  afterAll(async () => {
    await api?.close();
  });

  /** What completions booked before the change: payouts_sent credited by the net sent. */
  const oldCompletion = (reference: string, net: string) =>
    dataSource.transaction((manager) =>
      api.app.get(LedgerService).post(manager, {
        reference,
        kind: 'payout',
        lines: [
          {
            account: `deposits:${NETWORK}:USDT`,
            amount: new Decimal(net),
            currency: 'USDT',
            network: NETWORK,
          },
          {
            account: `payouts_sent:${NETWORK}:USDT`,
            amount: new Decimal(net).negated(),
            currency: 'USDT',
            network: NETWORK,
          },
        ],
      }),
    );
  const balance = async (account: string) => {
    const rows = await dataSource.query(
      `SELECT balance::text FROM ledger_balances WHERE account = $1`,
      [account],
    );
    return rows.length ? new Decimal(rows[0].balance).toFixed() : '0';
  };
  const run = async () => {
    const runner = dataSource.createQueryRunner();
    try {
      await reclassify(runner, 'payouts_sent', 'hot_wallet');
    } finally {
      await runner.release();
    }
  };

  it('moves each payouts_sent balance into hot_wallet with one appended entry, and only once', async () => {
    await oldCompletion(`reclassify-test:${Date.now()}:a`, '12.5');
    await oldCompletion(`reclassify-test:${Date.now()}:b`, '0.000001');

    await run();
    expect(await balance(`payouts_sent:${NETWORK}:USDT`)).toBe('0');
    expect(await balance(`hot_wallet:${NETWORK}:USDT`)).toBe('-12.500001');
    const lines = await dataSource.query(
      `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 ORDER BY l.account`,
      [`reclassify:payouts_sent:${NETWORK}:USDT`],
    );
    expect(lines).toEqual([
      { account: `hot_wallet:${NETWORK}:USDT`, amount: '-12.500001000000000000' },
      { account: `payouts_sent:${NETWORK}:USDT`, amount: '12.500001000000000000' },
    ]);

    // Nothing left to move: a second run appends nothing.
    await run();
    expect(
      await api.count('ledger_entries', `reference LIKE $1`, [
        `reclassify:payouts_sent:${NETWORK}:%`,
      ]),
    ).toBe(1);

    // History written after the first run (a migration run again after its down) gets its own
    // reference.
    await oldCompletion(`reclassify-test:${Date.now()}:c`, '1');
    await run();
    expect(await balance(`payouts_sent:${NETWORK}:USDT`)).toBe('0');
    expect(await balance(`hot_wallet:${NETWORK}:USDT`)).toBe('-13.500001');
    expect(
      await api.count('ledger_entries', `reference = $1`, [
        `reclassify:payouts_sent:${NETWORK}:USDT:2`,
      ]),
    ).toBe(1);
  });

  it('down gives payouts_sent its reclassified balance back, and up moves it again (in a rolled-back transaction)', async () => {
    const runner = dataSource.createQueryRunner();
    const migration = new TreasuryBooks1765900000000();
    const balanceIn = async (account: string) => {
      const rows = await runner.query(
        `SELECT balance::text FROM ledger_balances WHERE account = $1`,
        [account],
      );
      return rows.length ? new Decimal(rows[0].balance).toFixed() : '0';
    };
    await runner.startTransaction();
    try {
      const moved = await balanceIn(`hot_wallet:${NETWORK}:USDT`);
      expect(moved).not.toBe('0');
      await migration.down(runner);
      expect(await balanceIn(`payouts_sent:${NETWORK}:USDT`)).toBe(moved);
      expect(await balanceIn(`hot_wallet:${NETWORK}:USDT`)).toBe('0');
      await migration.up(runner);
      expect(await balanceIn(`payouts_sent:${NETWORK}:USDT`)).toBe('0');
      expect(await balanceIn(`hot_wallet:${NETWORK}:USDT`)).toBe(moved);
      const [{ runs }] = await runner.query(`SELECT to_regclass('reconciliation_runs') AS runs`);
      expect(runs).toBe('reconciliation_runs');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
