import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { settleSweptAddress } from '../../libs/treasury/src/sweeps/single-sweep-address';
import { FAILURES_BEFORE_FROZEN } from '../../libs/treasury/src/sweeps/sweep-outcomes';
import { testDatabaseUrl } from '../setup/test-database';

/**
 * What a one-address sweep (TRON, EVM gas top-up) leaves on its address, on the real database:
 * pending_block past the sweep's block, failures reset on success, and a refusal counted toward
 * freezing only when another address of the token was swept since (review findings 4 and 13).
 */
describe('One-address sweeps: the address after its transfer is mined', () => {
  let dataSource: DataSource;
  // A currency of its own per run: the rows of this suite never meet another suite's.
  const currency = `T${randomBytes(3).toString('hex').toUpperCase()}`;
  const network = 'TRON';

  beforeAll(async () => {
    dataSource = new DataSource({ type: 'postgres', url: testDatabaseUrl() });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const address = () => `T${randomBytes(16).toString('hex')}`;

  async function pendingAddress(at: string, pendingBlock: number, failures = 0) {
    await dataSource.query(
      `INSERT INTO sweep_addresses (network, currency, address, pending_since, pending_block, failures)
       VALUES ($1, $2, $3, now(), $4, $5)`,
      [network, currency, at, pendingBlock, failures],
    );
  }

  async function sweepOf(at: string, itemStatus: 'Pending' | 'Swept' | 'Failed') {
    const id = `sw_${randomBytes(8).toString('hex')}`;
    await dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind)
       VALUES ($1, $2, $3, 'TToken', 6, 'hot_wallet', 'THot', 'TStaking', NULL, 'Processing', 'tron')`,
      [id, network, currency],
    );
    await dataSource.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, $2, $3, $4, 0, 1, false, $5)`,
      [id, network, currency, at, itemStatus],
    );
    const [{ created_at }]: Array<{ created_at: Date }> = await dataSource.query(
      `SELECT created_at FROM sweeps WHERE id = $1`,
      [id],
    );
    return { id, network, currency, address: at, created_at };
  }

  const row = async (at: string) =>
    (
      await dataSource.query(
        `SELECT pending_block::int AS pending_block, failures, frozen_at FROM sweep_addresses
          WHERE network = $1 AND currency = $2 AND address = $3`,
        [network, currency, at],
      )
    )[0] as { pending_block: number; failures: number; frozen_at: Date | null };

  it('raises pending_block past the sweep block and resets failures on a swept transfer', async () => {
    const at = address();
    await pendingAddress(at, 100, 2);
    const sweep = await sweepOf(at, 'Swept');
    await dataSource.transaction((manager) => settleSweptAddress(manager, sweep, 'swept', 250));
    expect(await row(at)).toMatchObject({ pending_block: 250, failures: 0, frozen_at: null });
  });

  it('counts no refusal while no other address of the token is swept (a paused token freezes no one)', async () => {
    const at = address();
    await pendingAddress(at, 100, FAILURES_BEFORE_FROZEN - 1);
    const sweep = await sweepOf(at, 'Failed');
    await dataSource.transaction((manager) => settleSweptAddress(manager, sweep, 'refused', 300));
    expect(await row(at)).toMatchObject({
      pending_block: 300,
      failures: FAILURES_BEFORE_FROZEN - 1,
      frozen_at: null,
    });
  });

  it('counts a refusal, and freezes at the limit, once another address of the token was swept since', async () => {
    const at = address();
    await pendingAddress(at, 100, FAILURES_BEFORE_FROZEN - 1);
    const sweep = await sweepOf(at, 'Failed');
    await sweepOf(address(), 'Swept');
    await dataSource.transaction((manager) => settleSweptAddress(manager, sweep, 'refused', 310));
    const after = await row(at);
    expect(after.failures).toBe(FAILURES_BEFORE_FROZEN);
    expect(after.frozen_at).not.toBeNull();
  });
});
