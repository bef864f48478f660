import { randomBytes } from 'node:crypto';
import { LedgerAccounts, LedgerService, networkFeeEntry } from '@app/ledger';
import { OVERDUE_CHECKS } from '@app/treasury';
import { adjustmentEntry } from '@app/treasury/fees/fee-settlement';
import { CliProcess, CliResult } from '../support/cli-process';
import { TestApi } from '../support/test-app';

// Not POLYGON: network-fee-operator-cli counts the gauge on it, and these rows would move it.
const NETWORK = 'BASE';
const ETH = { symbol: 'ETH', decimals: 18 };
const FEES = LedgerAccounts.networkFees(NETWORK, 'ETH');

function json(result: CliResult): Record<string, unknown> {
  // stderr carries the warning 'Fee made final by an operator': shown only on a failure.
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

function refusal(result: CliResult): string {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
  return result.stderr.trim();
}

const newTxHash = () => `0x${randomBytes(32).toString('hex')}`;

/*
 * treasury:settle-fee's guards (review of the operator fee commands): a batch sweep's amounts the
 * pass would have compared (M1), a dry run and a fee far above the one booked (M2), a hash as an
 * explorer prints it (L2), a bounded listing (L4). The CLI runs as its own process.
 */
describe('Operator CLI: settling a network fee, its guards', () => {
  let api: TestApi;
  let cli: CliProcess;
  let ledger: LedgerService;

  beforeAll(async () => {
    [api, cli] = await Promise.all([TestApi.start(), CliProcess.shared()]);
    ledger = api.app.get(LedgerService, { strict: false });
  });

  afterAll(async () => {
    cli?.remove();
    await api?.close();
  });

  /** Books `fee` wei for a new transaction of the sweeper, overdue. */
  async function overdueFee(fee: bigint): Promise<string> {
    const txHash = newTxHash();
    await api.dataSource.transaction((manager) =>
      ledger.post(
        manager,
        networkFeeEntry({
          network: NETWORK,
          txHash,
          feeBaseUnits: fee,
          payer: 'sweeper',
          coin: ETH,
        }),
      ),
    );
    await api.dataSource.query(
      `UPDATE network_fee_receipts SET checks = $3 WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash, OVERDUE_CHECKS],
    );
    return txHash;
  }

  /** A completed sweep of `kind` whose attempt (step `step`) is `txHash`; its id. */
  async function sweepOf(txHash: string, kind: 'batch' | 'top_up', step: string) {
    const sweepId = `sw_${randomBytes(6).toString('hex')}`;
    await api.dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, block_number,
                           tx_hash)
       VALUES ($1, $2, 'USDT', '0x0', 6, 'hot_wallet', '0x1', '0x2', $3, 'Completed', $4, 1, $5)`,
      [sweepId, NETWORK, randomBytes(4).readUIntBE(0, 4), kind, txHash],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, status)
       VALUES ($1, 1, $2, $3, $4, '0x', 'Mined')`,
      [sweepId, NETWORK, step, txHash],
    );
    return sweepId;
  }

  const settle = (txHash: string, feeWei: string, ...more: string[]) =>
    cli.run(
      'treasury:settle-fee',
      ...['--network', NETWORK, '--tx', txHash, `--fee-wei=${feeWei}`],
      ...['--by', 'ops-bob', '--reason', 'explorer'],
      ...more,
    );

  async function state(txHash: string) {
    const [row] = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, final_at IS NOT NULL AS final,
              (SELECT count(*)::int FROM ledger_entries
                WHERE reference = 'network_fee_operator:' || network || ':' || tx_hash) AS entries
         FROM network_fee_receipts WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash],
    );
    return row as { fee: string; final: boolean; entries: number };
  }

  it("refuses a batch sweep's fee until the operator says its Swept amounts are checked (M1)", async () => {
    const txHash = await overdueFee(50_000n);
    const sweepId = await sweepOf(txHash, 'batch', 'batch');
    const listed = json(await cli.run('treasury:fees', '--network', NETWORK, '--limit', '10000'));
    expect(
      (listed as unknown as Array<Record<string, unknown>>).find((r) => r.tx_hash === txHash),
    ).toMatchObject({
      payout_id: null,
      sweep_id: sweepId,
      sweep_kind: 'batch',
      sweep_step: 'batch',
    });

    const refused = refusal(await settle(txHash, '60000'));
    expect(refused).toContain(`batch sweep ${sweepId}`);
    expect(refused).toContain('Swept events');
    expect(refused).toContain('--sweep-amounts-checked');
    expect(await state(txHash)).toEqual({ fee: '50000', final: false, entries: 0 });

    const settled = json(await settle(txHash, '60000', '--sweep-amounts-checked'));
    expect(settled).toMatchObject({ sweep_id: sweepId, difference_wei: '10000' });
    expect(await state(txHash)).toEqual({ fee: '60000', final: true, entries: 1 });
  });

  it("settles a sweep's fee that moves no whole balances without the flag", async () => {
    // A top-up sweep's transfer: signed amounts, which a reorg mines again unchanged.
    const txHash = await overdueFee(50_000n);
    const sweepId = await sweepOf(txHash, 'top_up', 'transfer');
    expect(json(await settle(txHash, '40000'))).toMatchObject({ sweep_id: sweepId });
  });

  it('prints what it would post with --dry-run and writes nothing (M2)', async () => {
    const txHash = await overdueFee(1_000_000_000_000_000_001n);
    const fees = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM ledger_lines WHERE account = $1`,
      [FEES],
    );
    const preview = json(await settle(txHash, '999999999999999999', '--dry-run'));
    expect(preview).toEqual({
      dry_run: true,
      row: expect.objectContaining({
        network: NETWORK,
        tx_hash: txHash,
        reason: 'overdue',
        fee_wei: '1000000000000000001',
        checks: OVERDUE_CHECKS,
      }),
      payout_id: null,
      sweep_id: null,
      sweep_kind: null,
      sweep_step: null,
      currency: 'ETH',
      booked_fee_wei: '1000000000000000001',
      final_fee_wei: '999999999999999999',
      difference_wei: '-2',
      entry: {
        reference: `network_fee_operator:${NETWORK}:${txHash}`,
        kind: 'network_fee_operator',
        lines: [
          { account: FEES, amount: '-0.000000000000000002', currency: 'ETH' },
          {
            account: LedgerAccounts.sweeper(NETWORK, 'ETH'),
            amount: '0.000000000000000002',
            currency: 'ETH',
          },
        ],
      },
      needs: [],
    });
    expect(await state(txHash)).toEqual({ fee: '1000000000000000001', final: false, entries: 0 });
    expect(
      await api.dataSource.query(`SELECT count(*)::int AS n FROM ledger_lines WHERE account = $1`, [
        FEES,
      ]),
    ).toEqual(fees);
  });

  it('refuses a fee above 10 times the booked one (any above 0 when 0 was booked) without --confirm-large (M2)', async () => {
    const txHash = await overdueFee(21_000n);
    expect(refusal(await settle(txHash, '210001'))).toBe(
      `A fee of 210001 wei is more than 10 times the 21000 wei booked for the ${NETWORK} fee of ` +
        `${txHash}: check it is in wei (not gwei, not coins), then run again with --confirm-large ` +
        '(a correction cannot be undone). Nothing posted.',
    );
    expect(await state(txHash)).toEqual({ fee: '21000', final: false, entries: 0 });
    const dry = json(await settle(txHash, '210001', '--dry-run'));
    expect(dry.needs).toEqual([expect.stringContaining('--confirm-large')]);
    expect(json(await settle(txHash, '210001', '--confirm-large'))).toMatchObject({
      difference_wei: '189001',
    });
    // Exactly 10 times is not large.
    const tenTimes = await overdueFee(7n);
    expect(json(await settle(tenTimes, '70'))).toMatchObject({ difference_wei: '63' });

    // Booked at 0: a zero fee books no row, so a fee corrected down to 0 by the pass, re-opened.
    const zero = await overdueFee(5n);
    await api.dataSource.transaction(async (manager) => {
      const entry = await adjustmentEntry(manager, NETWORK, zero, -5n);
      await ledger.post(manager, entry!);
      await manager.query(
        `UPDATE network_fee_receipts SET fee_base_units = 0 WHERE network = $1 AND tx_hash = $2`,
        [NETWORK, zero],
      );
    });
    expect(refusal(await settle(zero, '1'))).toContain('--confirm-large');
    expect(json(await settle(zero, '1', '--confirm-large'))).toMatchObject({ difference_wei: '1' });
  });

  it('finds the row of a hash given in upper case, refuses a malformed one as a usage error (L2)', async () => {
    const txHash = await overdueFee(30_000n);
    const upper = `0x${txHash.slice(2).toUpperCase()}`;
    expect(json(await settle(upper, '30000'))).toMatchObject({ tx_hash: txHash });
    for (const bad of [
      txHash.slice(0, 65),
      `${txHash}00`,
      txHash.slice(2),
      `0x${'g'.repeat(64)}`,
    ]) {
      const message = refusal(await settle(bad, '1'));
      expect(message).toMatch(/^--tx must be a transaction hash: 0x and 64 hex digits\./);
      expect(message).toContain('treasury:settle-fee --network NETWORK');
    }
  });

  it('lists --limit rows and says how many more (L4)', async () => {
    await overdueFee(11n);
    await overdueFee(12n);
    const result = await cli.run('treasury:fees', '--network', NETWORK, '--limit', '1');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(
      /^[1-9][0-9]* more not listed: raise --limit, or give --network\.$/,
    );
    expect(refusal(await cli.run('treasury:fees', '--limit', '0'))).toMatch(/^--limit must be/);
  });
});
