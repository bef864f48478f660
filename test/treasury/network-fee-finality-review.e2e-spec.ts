import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { toQuantity, Wallet } from 'ethers';
import { ChainFamily, NetworkName, NetworkRegistry, receiptFeeWei } from '@app/chains';
import { LedgerAccounts, LedgerService, networkFeeEntry } from '@app/ledger';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/metrics';
import { NetworkFeeFinality, OVERDUE_CHECKS } from '@app/treasury';
import { depositFeeEntry } from '@app/treasury/sweeps/deposit-fee-entry';
import { EvmTopUpJournalRepository } from '@app/treasury/sweeps/evm-top-up-journal.repository';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';

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
    // The worker's own fee pass once a day (at midnight UTC), not every 5 minutes: this suite
    // calls the passes itself and counts what they read.
    environment: { WATCH_NETWORKS: 'none', TREASURY_RECONCILE_INTERVAL_MS: '86400000' },
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
    return { txHash, fee: receiptFeeWei(receipt, { opStack: false })! };
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

  /** A pass of its own whose ETHEREUM node is reached through `proxy`. */
  function finalityBehind(proxy: RpcProxy): NetworkFeeFinality {
    const registry = chain.worker.get(NetworkRegistry, { strict: false });
    const behindProxy = {
      get: (name: NetworkName) => ({ ...registry.get(name), rpcUrls: [proxy.url] }),
      networksOfFamily: (family: ChainFamily) => registry.networksOfFamily(family),
    } as unknown as NetworkRegistry;
    return new NetworkFeeFinality(api.dataSource, ledger, behindProxy);
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

    await finality.finalize('ETHEREUM');
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
    const pass = await finality.finalize('ETHEREUM');
    expect(pass.adjusted).toBeGreaterThanOrEqual(1);

    // What the address holds after its transfer burnt the final fee.
    const onChain = topUp - fee;
    const journal = chain.worker.get(EvmTopUpJournalRepository, { strict: false });
    expect(await journal.ownCoin('ETHEREUM', address, ETH)).toBe(onChain);
    const strangers = chain.worker.get(StrangerCoin, { strict: false });
    expect(await strangers.book('ETHEREUM', address, onChain, 100)).toBe(0n);
  });

  it('reads every due fee in one pass, batch after batch, past fees not deep yet (H2, capacity)', async () => {
    const batch = 20;
    // Transactions dropped for good, booked a day ago, their receipts missing for ever: more
    // than two batches ahead of the fee that can be final. A pass read one batch (200) every
    // five minutes: a busy network's fees fell behind for good.
    const dropped = Array.from(
      { length: 2 * batch + 5 },
      () => `0x${randomBytes(32).toString('hex')}`,
    );
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, booked_at, next_check_at)
       SELECT 'ETHEREUM', h, 21000, now() - interval '1 day', now() - interval '1 day'
         FROM unnest($1::text[]) AS h`,
      [dropped],
    );
    try {
      const { txHash, fee } = await minedFee();
      await bookFee(txHash, fee + 7n);
      // A fee booked one block deep with no block recorded (as a payout's is), due before all
      // the others: read, left in place, and not read again by the pass's later batches.
      const { txHash: shallowHash } = await devnet.transfer(
        'USDT',
        Wallet.createRandom().address,
        '1',
      );
      const shallowReceipt = await devnet.provider.send('eth_getTransactionReceipt', [shallowHash]);
      await bookFee(shallowHash, receiptFeeWei(shallowReceipt, { opStack: false })!);
      await api.dataSource.query(
        `UPDATE network_fee_receipts SET block_number = NULL,
                next_check_at = now() - interval '2 days'
          WHERE network = 'ETHEREUM' AND tx_hash = $1`,
        [shallowHash],
      );
      const { blockNumber } = (await devnet.provider.getTransactionReceipt(shallowHash))!;

      const report = await finality.finalize('ETHEREUM', { batch });
      expect(report.ended).toBe('done');
      expect(await feeRow(txHash)).toEqual({ fee: fee.toString(), final: true });
      expect(report.waiting).toBeGreaterThanOrEqual(dropped.length + 1);
      const [shallow] = await api.dataSource.query(
        `SELECT checks, block_number::int AS block, final_at IS NULL AS open,
                next_check_at < now() - interval '1 day' AS kept_its_turn
           FROM network_fee_receipts WHERE tx_hash = $1`,
        [shallowHash],
      );
      // Its block recorded: skipped, not read, until it can be final.
      expect(shallow).toEqual({ checks: 0, block: blockNumber, open: true, kept_its_turn: true });
      const [{ checks }] = await api.dataSource.query(
        `SELECT min(checks)::int AS checks FROM network_fee_receipts WHERE tx_hash = ANY($1)`,
        [dropped],
      );
      expect(checks).toBe(1);

      // The dropped ones are put off, the shallow one skipped until deep enough.
      const again = await finality.finalize('ETHEREUM', { batch });
      expect(again.ended).toBe('done');
      const [{ reread }] = await api.dataSource.query(
        `SELECT count(*) FILTER (WHERE checks > 1)::int AS reread FROM network_fee_receipts
          WHERE tx_hash = ANY($1)`,
        [[...dropped, shallowHash]],
      );
      expect(reread).toBe(0);
      await devnet.mine(FINALITY_BLOCKS);
      const deep = await finality.finalize('ETHEREUM', { batch });
      expect(deep.final).toBeGreaterThanOrEqual(1);
      expect(await feeRow(shallowHash)).toMatchObject({ final: true });
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = ANY($1)`, [
        dropped,
      ]);
    }
  });

  it('stops reading a network whose node hangs on receipts after three failed reads (r9d, N2)', async () => {
    // Fees due for a day, ahead of everything else, behind a node that answers its head but
    // never a receipt: each read costs two 10 s timeouts, so a pass used to hold the
    // reconciliation queue for hours.
    const stuck = Array.from({ length: 40 }, () => `0x${randomBytes(32).toString('hex')}`);
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, next_check_at)
       SELECT 'ETHEREUM', h, 21000, now() - interval '30 days' FROM unnest($1::text[]) AS h`,
      [stuck],
    );
    const proxy = await RpcProxy.start(devnet.rpcUrl);
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionReceipt' ? 'hang' : undefined,
    );
    const hung = finalityBehind(proxy);
    try {
      const report = await hung.finalize('ETHEREUM');
      expect(report.ended).toBe('node-failing');
      const receiptReads = proxy.methods.filter((m) => m === 'eth_getTransactionReceipt');
      // Eight lanes: the eight first fees, and the next of each of the first two lanes to fail,
      // two attempts each; then nothing more.
      expect(receiptReads.length).toBeLessThanOrEqual(20);
      const [{ read, untouched, checked }] = await api.dataSource.query(
        `SELECT count(*) FILTER (WHERE next_check_at > now())::int AS read,
                count(*) FILTER (WHERE next_check_at < now() - interval '29 days')::int AS untouched,
                count(*) FILTER (WHERE checks > 0)::int AS checked
           FROM network_fee_receipts WHERE tx_hash = ANY($1)`,
        [stuck],
      );
      expect(read).toBeGreaterThanOrEqual(3);
      expect(read).toBeLessThanOrEqual(10);
      // A read the node failed counts as a check (review r11, 2: a node failing one hash for
      // good must make it overdue).
      expect(checked).toBe(read);
      // The rest keep their turn for the next pass.
      expect(untouched).toBe(stuck.length - read);
    } finally {
      await hung.onModuleDestroy();
      await proxy.stop();
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = ANY($1)`, [
        stuck,
      ]);
    }
  }, 180_000);

  it('makes a fee final only on headers linked by their hashes above its block (r10, r11: one)', async () => {
    const { txHash, fee } = await minedFee();
    await bookFee(txHash, fee + 7n);
    const { blockNumber } = (await devnet.provider.getTransactionReceipt(txHash))!;
    // A backend on another branch answers the block above the fee's: its header names another
    // parent. The receipt, the fee's own header and a deep head all agree; before, that was the
    // proof (a head and a header from two requests, which a balancer may send to two backends).
    const proxy = await RpcProxy.start(devnet.rpcUrl);
    const above = toQuantity(blockNumber + 1);
    let forked = 0;
    proxy.rewrite((request, answer) => {
      if (request.method !== 'eth_getBlockByNumber' || request.params?.[0] !== above) {
        return undefined;
      }
      forked += 1;
      const body = JSON.parse(answer) as { result: { parentHash: string } | null };
      if (body.result) body.result.parentHash = `0x${'ab'.repeat(32)}`;
      return JSON.stringify(body);
    });
    const stale = finalityBehind(proxy);
    try {
      await stale.finalize('ETHEREUM');
      expect(forked).toBeGreaterThan(0);
      expect(await feeRow(txHash)).toEqual({ fee: (fee + 7n).toString(), final: false });

      // The top of the depth missing (a backend behind): not final either, and not put off.
      forked = 0;
      const top = toQuantity(blockNumber + FINALITY_BLOCKS - 1);
      proxy.rewrite((request) =>
        request.method === 'eth_getBlockByNumber' && request.params?.[0] === top
          ? JSON.stringify({ jsonrpc: '2.0', id: request.id, result: null })
          : undefined,
      );
      await api.dataSource.query(
        `UPDATE network_fee_receipts SET next_check_at = now() - interval '1 second'
          WHERE network = 'ETHEREUM' AND tx_hash = $1`,
        [txHash],
      );
      await stale.finalize('ETHEREUM');
      expect(await feeRow(txHash)).toEqual({ fee: (fee + 7n).toString(), final: false });
      const [{ due }] = await api.dataSource.query(
        `SELECT next_check_at <= now() AS due FROM network_fee_receipts WHERE tx_hash = $1`,
        [txHash],
      );
      expect(due).toBe(true);

      // The chain as it is, linked: the same fee is settled.
      proxy.rewrite(undefined);
      await stale.finalize('ETHEREUM');
      expect(await feeRow(txHash)).toEqual({ fee: fee.toString(), final: true });
    } finally {
      await stale.onModuleDestroy();
      await proxy.stop();
    }
  });

  it('lets one pass of a network run at a time: a scheduled pass skips while another runs', async () => {
    const proxy = await RpcProxy.start(devnet.rpcUrl);
    const row = `0x${randomBytes(32).toString('hex')}`;
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, next_check_at)
       VALUES ('ETHEREUM', $1, 21000, now() - interval '4 days')`,
      [row],
    );
    // The first pass is held on its first receipt read until the proxy lets it go.
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionReceipt' ? 'hang' : undefined,
    );
    const held = finalityBehind(proxy);
    try {
      const first = held.finalize('ETHEREUM');
      await waitFor(
        async () => proxy.methods.includes('eth_getTransactionReceipt'),
        30_000,
        'the first pass reading',
      );
      expect(await finality.finalize('ETHEREUM', { wait: false })).toMatchObject({
        ended: 'locked',
        final: 0,
        waiting: 0,
      });
      proxy.intercept(undefined);
      expect((await first).ended).not.toBe('locked');
    } finally {
      await held.onModuleDestroy();
      await proxy.stop();
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = $1`, [row]);
    }
  }, 180_000);

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
      const report = await finality.finalize('ETHEREUM');
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
    expect((await finality.finalize('ETHEREUM')).adjusted).toBeGreaterThanOrEqual(1);
    // Re-opened (an operator, or a later check after a second reorg) with another fee booked:
    // its correction's reference is taken by the first one.
    await api.dataSource.query(
      `UPDATE network_fee_receipts
          SET final_at = NULL, fee_base_units = $2, block_hash = '0xbeef'
        WHERE network = 'ETHEREUM' AND tx_hash = $1`,
      [txHash, (fee + 20n).toString()],
    );
    const report = await finality.finalize('ETHEREUM');
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
      const report = await finality.finalize('ETHEREUM');
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
