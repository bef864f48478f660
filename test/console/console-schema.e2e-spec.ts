import { TestApi } from '../support/test-app';

describe('Console schema (issue 25, review finding 14)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(() => api.close());

  it('has no merchants.require_two_factor: two-factor is mandatory for every account', async () => {
    const columns = await api.dataSource.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'merchants'`,
    );
    const names = columns.map((column: { column_name: string }) => column.column_name);
    expect(names).toContain('name');
    expect(names).not.toContain('require_two_factor');
  });
});
