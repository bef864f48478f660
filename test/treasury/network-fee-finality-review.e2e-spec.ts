import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { Wallet } from 'ethers';
import { receiptFeeWei } from '@app/chains';
import { LedgerAccounts, LedgerService, networkFeeEntry } from '@app/ledger';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/metrics';
import { NetworkFeeFinality, OVERDUE_CHECKS } from '@app/treasury';
import { depositFeeEntry } from '@app/treasury/sweeps/deposit-fee-entry';
import { EvmTopUpJournalRepository } from '@app/treasury/sweeps/evm-top-up-journal.repository';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { TestApi } from '../support/test-app';

const FINALITY_BLOCKS = 4;
const ETH = { symbol: 'ETH', decimals: 18 };

/*
 * Fees become final, review r9b's reproductions on a real anvil and the real worker: a deposit
 * fee's adjustment is counted with the address's own coin (H1); fees that never become final,
 * and one whose receipt read fails, hold no newer fee back (H2); TRON fees are recorded final
 * (M4); a correction not posted marks nothing final (L1); fees overdue or left for an
 * operator show in a gauge (M1).
 */
describe('Network fees become final: review r9b', () => {
  const chain = useChainSuite({
    networksFile: { finalityBlocks: FINALITY_BLOCKS },
    environment: { WATCH_NETWORKS: 'none' },
    newChain: 'forget',
    worker: true,
    merchant: false,
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let api: TestApi;
  let finality: NetworkFeeFinality;
  let ledger: LedgerService;
  beforeAll(() => {
    ({ devnet, api } = chain);
    finality = chain.worker.get(NetworkFeeFinality, { strict: false });
    ledger = chain.worker.get(LedgerService, { strict: false });
  });

  /** A mined transaction FINALITY_BLOCKS deep, and its receipt's fee. */
  async function minedFee(): Promise<{ txHash: string; fee: bigint }> {
    const { txHash } = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    await devnet.mine(FINALITY_BLOCKS + 1);
    const receipt = await devnet.provider.send('eth_getTransactionReceipt', [txHash]);
    return { txHash, fee: receiptFeeWei(receipt)! };
  }

  /** Books `feeBaseUnits` for `txHash` out of the hot wallet, as the payout path does. */
  async function bookFee(txHash: string, feeBaseUnits: bigint): Promise<void> {
    await api.dataSource.transaction((manager) =>
      ledger.post(
        manager,
        networkFeeEntry({
          network: 'ETHEREUM',
          txHash,
          feeBaseUnits,
          payer: 'hot_wallet',
          coin: ETH,
        }),
      ),
    );
  }

  async function feeRow(txHash: string): Promise<{ fee: string; final: boolean } | undefined> {
    const [row] = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, final_at IS NOT NULL AS final
         FROM network_fee_receipts WHERE network = 'ETHEREUM' AND tx_hash = $1`,
      [txHash],
    );
    return row;
  }

  /** Rows a pass over ETHEREUM would read now (other tests' leftovers included). */
  async function due(): Promise<number> {
    const [{ n }] = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM network_fee_receipts
        WHERE network = 'ETHEREUM' AND final_at IS NULL AND next_check_at <= now()`,
    );
    return n;
  }

  const wei = (amount: bigint) => new Decimal(amount.toString()).div('1e18');

  /** A completed top-up of `topUp` wei to a new address whose transfer paid `booked` wei. */
  async function toppedUpAddress(txHash: string, topUp: bigint, booked: bigint): Promise<string> {
    const address = Wallet.createRandom().address;
    const topUpHash = `0x${randomBytes(32).toString('hex')}`;
    const sweepId = `sw_${randomBytes(6).toString('hex')}`;
    // A nonce of its own: (sweeper, nonce) is unique.
    await api.dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, block_number)
       VALUES ($1, 'ETHEREUM', 'USDT', '0x0', 6, 'hot_wallet', '0x1', '0x2', $2, 'Completed',
               'top_up', 1)`,
      [sweepId, randomBytes(3).readUIntBE(0, 3)],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, 'ETHEREUM', 'USDT', $2, 1, 1, false, 'Swept')`,
      [sweepId, address],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, status)
       VALUES ($1, 1, 'ETHEREUM', 'batch', $2, '0x', 'Mined'),
              ($1, 2, 'ETHEREUM', 'transfer', $3, '0x', 'Mined')`,
      [sweepId, topUpHash, txHash],
    );
    const line = { currency: 'ETH', network: 'ETHEREUM' };
    await api.dataSource.transaction((manager) =>
      ledger.postMany(manager, [
        {
          reference: `sweep_top_up:ETHEREUM:${topUpHash}`,
          kind: 'sweep_top_up',
          lines: [
            { account: LedgerAccounts.deposits('ETHEREUM', 'ETH'), amount: wei(topUp), ...line },
            { account: LedgerAccounts.sweeper('ETHEREUM', 'ETH'), amount: wei(-topUp), ...line },
          ],
        },
        depositFeeEntry({
          network: 'ETHEREUM',
          txHash,
          feeBaseUnits: booked,
          coin: ETH,
          block: { number: 1, hash: '0xdead' },
        }),
      ]),
    );
    return address;
  }

  it('books no stranger coin on an address while one of its fees may still be corrected (r9d, N1)', async () => {
    const { txHash, fee } = await minedFee();
    const topUp = fee + 1000n;
    // Booked from a first receipt 300 wei dearer than the final one; the address's next sweep
    // reads it before the fee is final.
    const address = await toppedUpAddress(txHash, topUp, fee + 300n);
    const onChain = topUp - fee;
    const strangers = chain.worker.get(StrangerCoin, { strict: false });
    expect(await strangers.book('ETHEREUM', address, onChain, 100)).toBeNull();

    await finality.finalize('ETHEREUM', 1000);
    expect(await strangers.book('ETHEREUM', address, onChain, 100)).toBe(0n);
    // The address's coin in the books is the chain's: the difference was booked once.
    const [{ books }]: Array<{ books: string }> = await api.dataSource.query(
      `SELECT trunc(sum(l.amount) * 1e18)::text AS books
         FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $1
        WHERE e.reference LIKE '%' || $2 || '%'
           OR e.reference LIKE 'unmatched_native:ETHEREUM:' || $3 || ':%'
           OR e.reference IN (SELECT 'sweep_top_up:ETHEREUM:' || a.tx_hash FROM sweep_attempts a
                                JOIN sweep_items i ON i.sweep_id = a.sweep_id
                               WHERE i.address = $3)`,
      [LedgerAccounts.deposits('ETHEREUM', 'ETH'), txHash, address],
    );
    expect(BigInt(books)).toBe(onChain);
  });

  it('counts a deposit fee adjustment with the address own coin: no stranger coin (H1)', async () => {
    const { txHash, fee } = await minedFee();
    const topUp = fee + 1000n;
    // Booked from a first receipt 300 wei dearer than the final one.
    const address = await toppedUpAddress(txHash, topUp, fee + 300n);
    const pass = await finality.finalize('ETHEREUM', 1000);
    expect(pass.adjusted).toBeGreaterThanOrEqual(1);

    // What the address holds after its transfer burnt the final fee.
    const onChain = topUp - fee;
    const journal = chain.worker.get(EvmTopUpJournalRepository, { strict: false });
    expect(await journal.ownCoin('ETHEREUM', address, ETH)).toBe(onChain);
    const strangers = chain.worker.get(StrangerCoin, { strict: false });
    expect(await strangers.book('ETHEREUM', address, onChain, 100)).toBe(0n);
  });

  it('reads fees that never become final after newer ones: no starvation (H2)', async () => {
    const batch = 20;
    // Transactions dropped for good: booked a day ago, their receipts missing for ever.
    const dropped = Array.from({ length: batch }, () => `0x${randomBytes(32).toString('hex')}`);
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, booked_at)
       SELECT 'ETHEREUM', h, 21000, now() - interval '1 day' FROM unnest($1::text[]) AS h`,
      [dropped],
    );
    try {
      const { txHash, fee } = await minedFee();
      await bookFee(txHash, fee + 7n);
      // Each row ahead of it is read once, then put off: the newer fee's turn comes.
      const passes = Math.ceil((await due()) / batch);
      const reports = [];
      for (let pass = 0; pass < passes && !(await feeRow(txHash))?.final; pass++)
        reports.push(await finality.finalize('ETHEREUM', batch));
      expect(await feeRow(txHash)).toEqual({ fee: fee.toString(), final: true });
      expect(reports[0].waiting).toBe(batch);
      // The dropped ones are not read again on the next pass.
      const again = await finality.finalize('ETHEREUM', batch);
      expect(again.waiting).toBe(0);
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = ANY($1)`, [
        dropped,
      ]);
    }
  });

  it('goes on past a fee whose receipt read fails, and reads it again later (H2)', async () => {
    // A hash the node refuses (as a provider may refuse an unknown one): the read throws.
    const refused = 'not-a-hash';
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, next_check_at)
       VALUES ('ETHEREUM', $1, 21000, now() - interval '1 hour')`,
      [refused],
    );
    try {
      const { txHash, fee } = await minedFee();
      await bookFee(txHash, fee + 5n);
      const report = await finality.finalize('ETHEREUM', 1000);
      expect(report.adjusted).toBeGreaterThanOrEqual(1);
      expect(await feeRow(txHash)).toEqual({ fee: fee.toString(), final: true });
      const [later] = await api.dataSource.query(
        `SELECT checks, next_check_at > now() AS put_off FROM network_fee_receipts
          WHERE tx_hash = $1`,
        [refused],
      );
      expect(later).toEqual({ checks: 1, put_off: true });
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = $1`, [refused]);
    }
  });

  it('records a TRON fee already final: it is never read again (M4)', async () => {
    const txHash = randomBytes(32).toString('hex');
    await api.dataSource.transaction((manager) =>
      ledger.post(
        manager,
        networkFeeEntry({
          network: 'TRON',
          txHash,
          feeBaseUnits: 345_000n,
          payer: 'hot_wallet',
          coin: { symbol: 'TRX', decimals: 6 },
        }),
      ),
    );
    const [row] = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, final_at = booked_at AS final
         FROM network_fee_receipts WHERE network = 'TRON' AND tx_hash = $1`,
      [txHash],
    );
    expect(row).toEqual({ fee: '345000', final: true });
  });

  it('leaves a second correction whose entry cannot be posted to an operator (L1)', async () => {
    const { txHash, fee } = await minedFee();
    await bookFee(txHash, fee + 10n);
    expect((await finality.finalize('ETHEREUM', 1000)).adjusted).toBeGreaterThanOrEqual(1);
    // Re-opened (an operator, or a later check after a second reorg) with another fee booked:
    // its correction's reference is taken by the first one.
    await api.dataSource.query(
      `UPDATE network_fee_receipts
          SET final_at = NULL, fee_base_units = $2, block_hash = '0xbeef'
        WHERE network = 'ETHEREUM' AND tx_hash = $1`,
      [txHash, (fee + 20n).toString()],
    );
    const report = await finality.finalize('ETHEREUM', 1000);
    expect(report.operator).toBeGreaterThanOrEqual(1);
    expect(await feeRow(txHash)).toEqual({ fee: (fee + 20n).toString(), final: false });
    const [{ n }] = await api.dataSource.query(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE reference = $1`,
      [`network_fee_adjustment:ETHEREUM:${txHash}`],
    );
    expect(n).toBe(1);
    await api.dataSource.query(
      `UPDATE network_fee_receipts SET final_at = now() WHERE network = 'ETHEREUM' AND tx_hash = $1`,
      [txHash],
    );
  });

  it('counts fees overdue or left for an operator in a gauge (M1)', async () => {
    const registry = chain.worker.get<Registry>(METRICS_REGISTRY, { strict: false });
    const notFinal = async (reason: string): Promise<number> => {
      const metric = registry.getSingleMetric('payments_treasury_fees_not_final');
      const { values } = await metric!.get();
      return (
        values.find((v) => v.labels.network === 'ETHEREUM' && v.labels.reason === reason)?.value ??
        0
      );
    };
    // Undecided five times already (a transaction dropped for good): the sixth makes it overdue.
    const dropped = `0x${randomBytes(32).toString('hex')}`;
    // A succeeded transaction booked as reverted: a status flip, left for an operator.
    const { txHash: flipped } = await minedFee();
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, checks, succeeded)
       VALUES ('ETHEREUM', $1, 21000, $3, NULL), ('ETHEREUM', $2, 1, 0, false)`,
      [dropped, flipped, OVERDUE_CHECKS - 1],
    );
    try {
      const before = { overdue: await notFinal('overdue'), operator: await notFinal('operator') };
      const report = await finality.finalize('ETHEREUM', 1000);
      expect(report.operator).toBeGreaterThanOrEqual(1);
      expect(await notFinal('overdue')).toBe(before.overdue + 1);
      expect(await notFinal('operator')).toBe(before.operator + 1);
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = ANY($1)`, [
        [dropped, flipped],
      ]);
    }
  });
});
