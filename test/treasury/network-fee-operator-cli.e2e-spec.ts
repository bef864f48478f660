import { randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import { Registry } from 'prom-client';
import { fromBaseUnits, LedgerAccounts, LedgerService, networkFeeEntry } from '@app/ledger';
import { NetworkRegistry } from '@app/chains';
import { OVERDUE_CHECKS } from '@app/treasury';
import { depositFeeEntry } from '@app/treasury/sweeps/deposit-fee-entry';
import { EvmTopUpJournalRepository } from '@app/treasury/sweeps/evm-top-up-journal.repository';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { FeesNotFinalGauge } from '../../apps/worker/src/treasury/fees-not-final.gauge';
import { CliProcess, CliResult } from '../support/cli-process';
import { TestApi } from '../support/test-app';

// A network no other suite books fees on: the listing and the gauge show this suite's rows only.
const NETWORK = 'POLYGON';
const POL = { symbol: 'POL', decimals: 18 };
const FEES = LedgerAccounts.networkFees(NETWORK, 'POL');
const HOT_WALLET = LedgerAccounts.hotWallet(NETWORK, 'POL');
const SWEEPER = LedgerAccounts.sweeper(NETWORK, 'POL');

/** The one JSON value a successful command prints. */
function json(result: CliResult): unknown {
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

/** A refusal: exit code 2, nothing on stdout, the reason on stderr. */
function refusal(result: CliResult): string {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
  return result.stderr.trim();
}

const newTxHash = () => `0x${randomBytes(32).toString('hex')}`;

/*
 * An operator settles a fee the pass leaves not final (docs/treasury.md, "Fees become final";
 * review r9b M1): treasury:fees lists what the gauge counts, treasury:settle-fee posts the
 * operator's difference once between the fee entry's own accounts and makes the row final. The
 * fees are booked by the ledger as every flow books them (networkFeeEntry), the CLI run as its
 * own process: exit codes and messages as an operator sees them.
 */
describe('Operator CLI: network fees not final', () => {
  let api: TestApi;
  let cli: CliProcess;
  let ledger: LedgerService;
  let registry: Registry;

  beforeAll(async () => {
    [api, cli] = await Promise.all([TestApi.start(), CliProcess.shared()]);
    ledger = api.app.get(LedgerService, { strict: false });
    // The worker's gauge, on this suite's database.
    registry = new Registry();
    new FeesNotFinalGauge(registry, api.dataSource);
  });

  afterAll(async () => {
    cli?.remove();
    await api?.close();
  });

  /** Books `fee` wei for a new transaction, as a payout (hot wallet) or a sweep (sweeper) does. */
  async function bookFee(
    fee: bigint,
    payer: 'hot_wallet' | 'sweeper',
    row: { checks?: number; operator?: boolean; final?: boolean },
  ): Promise<string> {
    const txHash = newTxHash();
    await api.dataSource.transaction((manager) =>
      ledger.post(
        manager,
        networkFeeEntry({ network: NETWORK, txHash, feeBaseUnits: fee, payer, coin: POL }),
      ),
    );
    await api.dataSource.query(
      `UPDATE network_fee_receipts
          SET checks = $3, operator_since = CASE WHEN $4 THEN now() - interval '1 day' END,
              final_at = CASE WHEN $5 THEN now() END
        WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash, row.checks ?? 0, row.operator ?? false, row.final ?? false],
    );
    return txHash;
  }

  /** An account's balance in wei, exactly (the ledger's numeric, never a JS number). */
  async function balanceWei(account: string): Promise<bigint> {
    const [{ wei }] = await api.dataSource.query(
      `SELECT trunc(COALESCE(sum(amount), 0) * 1e18)::text AS wei
         FROM ledger_lines WHERE account = $1`,
      [account],
    );
    return BigInt(wei);
  }

  async function notFinal(reason: 'operator' | 'overdue'): Promise<number> {
    const { values } = await registry.getSingleMetric('payments_treasury_fees_not_final')!.get();
    return (
      values.find((v) => v.labels.network === NETWORK && v.labels.reason === reason)?.value ?? 0
    );
  }

  async function operatorEntries(txHash: string): Promise<number> {
    const [{ n }] = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE reference = $1`,
      [`network_fee_operator:${NETWORK}:${txHash}`],
    );
    return n;
  }

  const settle = (txHash: string, feeWei: string, ...more: string[]) =>
    cli.run(
      'treasury:settle-fee',
      ...['--network', NETWORK, '--tx', txHash, `--fee-wei=${feeWei}`],
      ...['--by', 'ops-alice', '--reason', 'explorer shows the receipt of block 123'],
      ...more,
    );

  // Odd amounts, above 2^53: a JS number anywhere on the way would lose wei.
  const BOOKED = 630_000_000_000_123_457n;
  let leftForOperator: string;
  let overdue: string;
  let overdueSame: string;
  let stillChecked: string;
  let final: string;

  beforeAll(async () => {
    leftForOperator = await bookFee(BOOKED, 'hot_wallet', { operator: true, checks: 3 });
    overdue = await bookFee(420_000_000_000_000_001n, 'sweeper', { checks: OVERDUE_CHECKS });
    overdueSame = await bookFee(21_000_000_000_000n, 'hot_wallet', { checks: OVERDUE_CHECKS + 2 });
    stillChecked = await bookFee(1_000n, 'hot_wallet', { checks: 2 });
    final = await bookFee(2_000n, 'hot_wallet', { checks: 1, final: true });
  });

  it('treasury:fees lists the fees left for an operator or overdue, and only those', async () => {
    const hashes = [leftForOperator, overdue, overdueSame, stillChecked, final];
    const [operatorTx, overdueTx, sameTx] = hashes;
    const listed = json(await cli.run('treasury:fees', '--network', NETWORK)) as Array<
      Record<string, unknown>
    >;
    const ours = listed.filter((row) => hashes.includes(row.tx_hash as string));
    expect(ours.map((row) => row.tx_hash).sort()).toEqual([operatorTx, overdueTx, sameTx].sort());
    expect(ours.find((row) => row.tx_hash === operatorTx)).toEqual({
      network: NETWORK,
      tx_hash: operatorTx,
      reason: 'operator',
      source: 'hot_wallet',
      payer_account: HOT_WALLET,
      // Booked here without a payout or sweep: none to name.
      payout_id: null,
      sweep_id: null,
      sweep_kind: null,
      sweep_step: null,
      currency: 'POL',
      fee_wei: BOOKED.toString(),
      block_number: null,
      succeeded: null,
      booked_at: expect.any(String),
      checks: 3,
      operator_since: expect.any(String),
    });
    expect(ours.find((row) => row.tx_hash === overdueTx)).toMatchObject({
      reason: 'overdue',
      source: 'sweeper',
      payer_account: SWEEPER,
      fee_wei: '420000000000000001',
      checks: OVERDUE_CHECKS,
      operator_since: null,
    });
    // Without --network: every network's, these among them.
    const all = json(await cli.run('treasury:fees')) as Array<{ tx_hash: string }>;
    expect(all.map((row) => row.tx_hash)).toEqual(expect.arrayContaining([operatorTx, overdueTx]));
    expect(refusal(await cli.run('treasury:fees', '--network', 'NOWHERE'))).toContain(
      '--network must be one of',
    );
  });

  it('treasury:settle-fee posts exactly the difference between the fee entry accounts, once', async () => {
    const txHash = leftForOperator;
    const decided = BOOKED + 123_456_789_012_345n;
    const before = {
      fees: await balanceWei(FEES),
      payer: await balanceWei(HOT_WALLET),
      operator: await notFinal('operator'),
    };
    const settled = json(await settle(txHash, decided.toString()));
    expect(settled).toEqual({
      network: NETWORK,
      tx_hash: txHash,
      payout_id: null,
      sweep_id: null,
      sweep_kind: null,
      sweep_step: null,
      currency: 'POL',
      booked_fee_wei: BOOKED.toString(),
      final_fee_wei: decided.toString(),
      difference_wei: '123456789012345',
      reference: `network_fee_operator:${NETWORK}:${txHash}`,
      final_at: expect.any(String),
      by: 'ops-alice',
      reason: 'explorer shows the receipt of block 123',
    });
    // The expense up by the difference, the payer (the fee entry's credit side) down by it.
    expect(await balanceWei(FEES)).toBe(before.fees + 123_456_789_012_345n);
    expect(await balanceWei(HOT_WALLET)).toBe(before.payer - 123_456_789_012_345n);
    const [row] = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, final_at IS NOT NULL AS final, settled_by, settled_reason
         FROM network_fee_receipts WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash],
    );
    expect(row).toEqual({
      fee: decided.toString(),
      final: true,
      settled_by: 'ops-alice',
      settled_reason: 'explorer shows the receipt of block 123',
    });
    expect(await notFinal('operator')).toBe(before.operator - 1);
    const [line] = await api.dataSource.query(
      `SELECT e.kind, l.amount::text AS amount FROM ledger_entries e
         JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $2
        WHERE e.reference = $1`,
      [`network_fee_operator:${NETWORK}:${txHash}`, FEES],
    );
    expect(line).toEqual({ kind: 'network_fee_operator', amount: '0.000123456789012345' });

    // A repeat is refused: the row is final, nothing more is posted.
    const again = refusal(await settle(txHash, (decided + 1n).toString()));
    expect(again).toMatch(
      /^The POLYGON fee of 0x[0-9a-f]{64} is final already \(since .*\): nothing posted\.$/,
    );
    expect(await operatorEntries(txHash)).toBe(1);
    expect(await balanceWei(FEES)).toBe(before.fees + 123_456_789_012_345n);
  });

  it('gives a fee lower than booked back to its payer, and posts nothing for the same fee', async () => {
    const [lower, same] = [overdue, overdueSame];
    const before = {
      fees: await balanceWei(FEES),
      sweeper: await balanceWei(SWEEPER),
      overdue: await notFinal('overdue'),
    };
    const down = json(await settle(lower, '400000000000000000')) as { difference_wei: string };
    expect(down.difference_wei).toBe('-20000000000000001');
    expect(await balanceWei(FEES)).toBe(before.fees - 20_000_000_000_000_001n);
    expect(await balanceWei(SWEEPER)).toBe(before.sweeper + 20_000_000_000_000_001n);

    const unchanged = json(await settle(same, '21000000000000')) as Record<string, unknown>;
    expect(unchanged).toMatchObject({ difference_wei: '0', reference: null });
    expect(await operatorEntries(same)).toBe(0);
    expect(await balanceWei(FEES)).toBe(before.fees - 20_000_000_000_000_001n);
    expect(await notFinal('overdue')).toBe(before.overdue - 2);
  });

  it('refuses an unknown transaction, a final fee, one the pass still checks, a bad amount', async () => {
    const unknown = newTxHash();
    expect(refusal(await settle(unknown, '1'))).toBe(
      `No fee of POLYGON transaction ${unknown} is recorded (network_fee_receipts): nothing ` +
        'settled. treasury:fees lists the fees waiting for an operator.',
    );
    const finalTx = final;
    expect(refusal(await settle(finalTx, '1'))).toMatch(/is final already .*nothing posted\.$/);
    const checked = stillChecked;
    expect(refusal(await settle(checked, '5'))).toBe(
      `The POLYGON fee of ${checked} is still checked by the pass (2 of ${OVERDUE_CHECKS} checks, ` +
        'not left for an operator): nothing posted.',
    );
    for (const bad of ['1.5', '-5', '1e18', '0x10', '']) {
      const message = refusal(await settle(checked, bad));
      expect(message).toMatch(/^--fee-wei must be a whole number of wei/);
      expect(message).toContain('treasury:settle-fee --network NETWORK');
    }
    expect(
      refusal(
        await cli.run(
          'treasury:settle-fee',
          '--network',
          NETWORK,
          '--tx',
          checked,
          '--fee-wei',
          '5',
        ),
      ),
    ).toMatch(/^--by is required\./);
    expect(await operatorEntries(checked)).toBe(0);
    expect(await operatorEntries(finalTx)).toBe(0);
    const [row] = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, final_at IS NULL AS open FROM network_fee_receipts
        WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, checked],
    );
    expect(row).toEqual({ fee: '1000', open: true });
  });

  /**
   * A deposit address topped up with `topUp` wei whose own transfer `txHash` was booked at
   * `booked` wei (a sweep of kind top_up: attempt 1 the top-up, attempt 2 the transfer).
   */
  async function toppedUpAddress(txHash: string, topUp: bigint, booked: bigint): Promise<string> {
    const address = Wallet.createRandom().address;
    const topUpHash = newTxHash();
    const sweepId = `sw_${randomBytes(6).toString('hex')}`;
    // A nonce of its own: (sweeper, nonce) is unique.
    await api.dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, block_number)
       VALUES ($1, $2, 'USDT', '0x0', 6, 'hot_wallet', '0x1', '0x2', $3, 'Completed', 'top_up', 1)`,
      [sweepId, NETWORK, randomBytes(3).readUIntBE(0, 3)],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, $2, 'USDT', $3, 1, 1, false, 'Swept')`,
      [sweepId, NETWORK, address],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, status)
       VALUES ($1, 1, $2, 'batch', $3, '0x', 'Mined'), ($1, 2, $2, 'transfer', $4, '0x', 'Mined')`,
      [sweepId, NETWORK, topUpHash, txHash],
    );
    const deposits = LedgerAccounts.deposits(NETWORK, 'POL');
    const wei = (amount: bigint) => fromBaseUnits(amount, POL.decimals);
    const line = { currency: 'POL', network: NETWORK };
    await api.dataSource.transaction((manager) =>
      ledger.postMany(manager, [
        {
          reference: `sweep_top_up:${NETWORK}:${topUpHash}`,
          kind: 'sweep_top_up',
          lines: [
            { account: deposits, amount: wei(topUp), ...line },
            {
              account: LedgerAccounts.sweeper(NETWORK, 'POL'),
              amount: wei(topUp).negated(),
              ...line,
            },
          ],
        },
        depositFeeEntry({
          network: NETWORK,
          txHash,
          feeBaseUnits: booked,
          coin: POL,
          block: { number: 1, hash: '0xdead' },
        }),
      ]),
    );
    return address;
  }

  it('counts an operator correction of a deposit address fee with its own coin: no stranger coin (H1)', async () => {
    const txHash = newTxHash();
    const topUp = 1_000_000_000_000_000_007n;
    const fee = 21_000_000_000_000n;
    // Booked 300 wei dearer than the operator finds the chain charged; overdue.
    const address = await toppedUpAddress(txHash, topUp, fee + 300n);
    await api.dataSource.query(
      `UPDATE network_fee_receipts SET checks = $3 WHERE network = $1 AND tx_hash = $2`,
      [NETWORK, txHash, OVERDUE_CHECKS],
    );
    json(await settle(txHash, fee.toString()));

    // What the address holds after its transfer burnt the fee: all of it ours, none a stranger's.
    const onChain = topUp - fee;
    const journal = new EvmTopUpJournalRepository(api.dataSource);
    expect(await journal.ownCoin(NETWORK, address, POL)).toBe(onChain);
    const strangers = new StrangerCoin(
      api.dataSource,
      api.app.get(NetworkRegistry, { strict: false }),
      ledger,
    );
    expect(await strangers.book(NETWORK, address, onChain, 100)).toBe(0n);
  });
});
