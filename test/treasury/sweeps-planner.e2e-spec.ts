import { randomBytes } from 'node:crypto';
import { getAddress, hexlify } from 'ethers';
import { DataSource } from 'typeorm';
import { SweepPlannerRepository } from '../../libs/treasury/src/sweeps/sweep-planner.repository';
import { testDatabaseUrl } from '../setup/test-database';

// A network name of this suite's own: the planner's cursor and rows are per (network, currency).
const NETWORK = 'PLANNER_SUITE';
const CURRENCY = 'USDT';

describe('Sweep planner on PostgreSQL: ingest and unfreeze', () => {
  let dataSource: DataSource;
  let planner: SweepPlannerRepository;

  beforeAll(async () => {
    dataSource = new DataSource({ type: 'postgres', url: testDatabaseUrl() });
    await dataSource.initialize();
    planner = new SweepPlannerRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  async function payAddress(): Promise<string> {
    const address = getAddress(hexlify(randomBytes(20)));
    const index = randomBytes(3).readUIntBE(0, 3);
    await dataSource.query(
      `INSERT INTO pay_addresses (chain_family, key_fingerprint, derivation_index, address)
       VALUES ('EVM', 'planner-suite', $1, $2)`,
      [index, address],
    );
    return address;
  }

  async function row(address: string) {
    const [found]: Array<{
      pending_since: Date | null;
      pending_block: string;
      failures: number;
      frozen_at: Date | null;
    }> = await dataSource.query(
      `SELECT pending_since, pending_block, failures, frozen_at FROM sweep_addresses
        WHERE network = $1 AND currency = $2 AND address = $3`,
      [NETWORK, CURRENCY, address],
    );
    return found;
  }

  it('marks again an unmatched transfer a reorg reverted and a later block revived', async () => {
    const address = await payAddress();
    const txHash = hexlify(randomBytes(32));
    // Detected an hour ago: older than the cursor's overlap once the planner has moved past it.
    await dataSource.query(
      `INSERT INTO unmatched_transfers (id, livemode, reason, network, currency, token_contract,
         from_address, to_address, tx_hash, log_index, amount, amount_base_units, block_number,
         block_hash, created_at, updated_at)
       VALUES ($1, false, 'unknown_address', $2, $3, '0xtoken', '0xfrom', $4, $5, 0, 5, 5000000,
               10, '0xa', now() - interval '1 hour', now() - interval '1 hour')`,
      [`ut_${txHash.slice(2, 26)}`, NETWORK, CURRENCY, address, txHash],
    );
    await planner.ingest(NETWORK, CURRENCY);
    expect(Number((await row(address)).pending_block)).toBe(10);
    await planner.markEmpty(NETWORK, CURRENCY, [address], 10);
    expect((await row(address)).pending_since).toBeNull();

    // The reorg: reverted, then revived in block 12 (as the watcher's upsert does it).
    await dataSource.query(
      `UPDATE unmatched_transfers SET status = 'reverted', reverted_at = now(), updated_at = now()
        WHERE tx_hash = $1`,
      [txHash],
    );
    await planner.ingest(NETWORK, CURRENCY);
    await dataSource.query(
      `UPDATE unmatched_transfers SET status = 'detected', block_number = 12, block_hash = '0xb',
              reverted_at = NULL, updated_at = now()
        WHERE tx_hash = $1`,
      [txHash],
    );
    await planner.ingest(NETWORK, CURRENCY);
    const revived = await row(address);
    expect(revived.pending_since).not.toBeNull();
    expect(Number(revived.pending_block)).toBe(12);
  });

  it('unfreezes a frozen address with its failures cleared, and refuses one not frozen', async () => {
    const address = await payAddress();
    await dataSource.query(
      `INSERT INTO sweep_addresses (network, currency, address, pending_since, pending_block,
                                    failures, frozen_at)
       VALUES ($1, $2, $3, now(), 5, 3, now())`,
      [NETWORK, CURRENCY, address],
    );
    expect(await planner.unfreeze(NETWORK, CURRENCY, address.toLowerCase())).toBe(true);
    const unfrozen = await row(address);
    expect(unfrozen.frozen_at).toBeNull();
    expect(unfrozen.failures).toBe(0);
    expect(unfrozen.pending_since).not.toBeNull();
    expect(await planner.unfreeze(NETWORK, CURRENCY, address)).toBe(false);
  });
});
