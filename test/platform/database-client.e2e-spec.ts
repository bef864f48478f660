import { Client } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';
import { buildDataSourceOptions, CallbackQueryClient } from '@app/database';
import { TEST_DATABASE_URL } from '../setup/test-database';

/**
 * TypeORM's queries reach pg in callback mode (CallbackQueryClient): in promise mode each query's
 * result stayed alive until a full collection, which made every young-generation pause of the API
 * 3–10 ms (docs/decisions.md). Results, errors and prepared statements are pg's own either way.
 */
describe('PostgreSQL client of the apps', () => {
  let dataSource: DataSource;
  const handedToPg: Array<{ callback: boolean }> = [];
  // pg's own query, under the subclass: what it is handed is what pg runs.
  const pgQuery = Client.prototype.query as (...args: unknown[]) => unknown;
  const baseQuery = jest.spyOn(Client.prototype, 'query');

  beforeAll(async () => {
    baseQuery.mockImplementation(function (this: Client, ...args: unknown[]) {
      handedToPg.push({ callback: args.some((arg) => typeof arg === 'function') });
      return pgQuery.apply(this, args) as never;
    });
    dataSource = await new DataSource(
      buildDataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 2 }),
    ).initialize();
  });

  afterAll(async () => {
    baseQuery.mockRestore();
    await dataSource?.destroy();
  });

  it('gives every query its callback when it is handed to pg', async () => {
    handedToPg.length = 0;
    const rows: Array<{ answer: string }> = await dataSource.query(`SELECT $1::text AS answer`, [
      'forty-two',
    ]);
    expect(rows).toEqual([{ answer: 'forty-two' }]);
    expect(handedToPg).toEqual([{ callback: true }]);
  });

  it('keeps transactions, errors and their codes as they were', async () => {
    await expect(dataSource.query(`SELECT * FROM no_such_table`)).rejects.toThrow(QueryFailedError);
    await expect(dataSource.query(`SELECT * FROM no_such_table`)).rejects.toMatchObject({
      driverError: { code: '42P01' },
    });
    const inside = await dataSource.transaction(async (manager) => {
      await manager.query(`CREATE TEMP TABLE client_check (n int) ON COMMIT DROP`);
      await manager.query(`INSERT INTO client_check VALUES (1), (2)`);
      return manager.query(`SELECT sum(n)::int AS total FROM client_check`);
    });
    expect(inside).toEqual([{ total: 3 }]);
  });

  it('is the client class of the pool the apps build', () => {
    const options = buildDataSourceOptions({ url: TEST_DATABASE_URL });
    expect((options.extra as { Client?: unknown }).Client).toBe(CallbackQueryClient);
  });
});
