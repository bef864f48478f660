import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/database';
import { LedgerAccounts, LedgerEntry, LedgerService } from '@app/ledger';
import { TEST_DATABASE_URL } from '../setup/test-database';

/**
 * Posting is exactly once per reference: a retried posting is a no-op, never an error that would
 * roll back the caller's transaction (a deposit's settlement or a payout's hold posts again when
 * its job is retried). The ledger's statement triggers run on the real schema here.
 */
describe('LedgerService posting', () => {
  let dataSource: DataSource;
  let ledger: LedgerService;

  beforeAll(async () => {
    dataSource = await new DataSource(
      buildDataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 2 }),
    ).initialize();
    ledger = new LedgerService(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  // Asset and revenue accounts only: no merchant rows needed.
  const entry = (reference: string, amount = '1.5'): LedgerEntry => ({
    reference,
    kind: 'test',
    lines: [
      {
        account: LedgerAccounts.deposits('LEDGERTEST', 'USDT'),
        amount: new Decimal(amount),
        currency: 'USDT',
        network: 'LEDGERTEST',
      },
      {
        account: LedgerAccounts.fees('LEDGERTEST', 'USDT'),
        amount: new Decimal(amount).negated(),
        currency: 'USDT',
        network: 'LEDGERTEST',
      },
    ],
  });

  const linesOf = async (reference: string): Promise<number> => {
    const [row]: Array<{ lines: number }> = await dataSource.query(
      `SELECT count(*)::int AS lines FROM ledger_lines l
         JOIN ledger_entries e ON e.id = l.entry_id WHERE e.reference = $1`,
      [reference],
    );
    return row.lines;
  };

  it('re-posting an existing reference writes nothing and reports false', async () => {
    const reference = `test_repost:${randomUUID()}`;
    const post = () => dataSource.transaction((manager) => ledger.post(manager, entry(reference)));
    expect(await post()).toBe(true);
    expect(await post()).toBe(false);
    expect(await linesOf(reference)).toBe(2);
  });

  it('re-posting a batch of existing references is a no-op, a batch mixing both posts the new', async () => {
    const [a, b, c] = [1, 2, 3].map((n) => `test_repost_batch:${n}:${randomUUID()}`);
    const postMany = (references: string[]) =>
      dataSource.transaction((manager) =>
        ledger.postMany(
          manager,
          references.map((reference) => entry(reference)),
        ),
      );
    expect(await postMany([a, b])).toEqual([true, true]);
    expect(await postMany([a, b])).toEqual([false, false]);
    expect(await postMany([a, c, b])).toEqual([false, true, false]);
    expect(await Promise.all([a, b, c].map(linesOf))).toEqual([2, 2, 2]);
  });

  it('still refuses a line whose entry does not exist', async () => {
    await expect(
      dataSource.query(
        `INSERT INTO ledger_lines (entry_id, account, currency, network, amount)
         VALUES (-1, 'deposits:LEDGERTEST:USDT', 'USDT', 'LEDGERTEST', 1),
                (-1, 'fees:LEDGERTEST:USDT', 'USDT', 'LEDGERTEST', -1)`,
      ),
    ).rejects.toMatchObject({
      message: 'ledger line refers to entry -1, which does not exist',
      driverError: { code: '23503' },
    });
  });
});
