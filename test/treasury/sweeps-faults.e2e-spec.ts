import Decimal from 'decimal.js';
import { Contract, formatUnits, getAddress, parseUnits, Transaction } from 'ethers';
import { SWEEP_DELEGATE_INTERFACE } from '@app/chains/contracts/contract-artifacts';
import { CliProcess } from '../support/cli-process';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { devnetSweeper, DEVNET_TREASURY } from '../support/sweep-env';
import { useSweepSuite } from '../support/sweep-suite';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 60_000;
const SWEEPER = devnetSweeper(8);
const SWEEP_FAILED = SWEEP_DELEGATE_INTERFACE.getEvent('SweepFailed')!;
// PUSH1 0 PUSH1 0 REVERT: whatever calls it reverts, with all its effects.
const REVERTING_CODE = '0x60006000fd';

interface SweepRow {
  id: string;
  status: string;
  destination: string;
  tx_hash: string | null;
  error_reason: string | null;
}

/*
 * Sweeps meeting the chain's faults, each pass run by the test (the worker here only watches
 * deposits): gas above the cap, a bid stuck in a paused chain, a reverted batch, a blacklisting
 * USDT (the NoReturnToken stands in for the network's USDT), a hot wallet at its target, and the
 * operator's commands.
 */
describe('EVM sweeps under faults: deferred, replaced, reverted, refused, redirected', () => {
  const suite = useSweepSuite({
    sweeper: SWEEPER,
    // Refused and reverted sweeps are tried again at once (the backoff has its own suite).
    settings: { retryBackoffSeconds: 0 },
  });
  const { useSettings, pass } = suite;
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let delegate: string;
  let usdt: Contract;
  let frozenAddress: string;

  beforeAll(() => {
    ({ devnet, api, merchant, delegate, usdt } = suite);
  });

  // A test that fails with mining paused must not leave the next one without blocks.
  afterEach(async () => {
    await automine(true);
  });

  async function automine(on: boolean): Promise<void> {
    await devnet.provider.send('evm_setAutomine', [on]);
  }

  async function paidSessions(currency: 'USDT' | 'USDC', amounts: string[]): Promise<string[]> {
    const addresses: string[] = [];
    for (const amount of amounts) {
      const { body } = await api
        .post('/v1/checkout/sessions', merchant, {
          pricing_amount: amount,
          pricing_currency: 'USD',
          currency,
          network: 'ETHEREUM',
        })
        .expect(201);
      const address = body.pay_address as string;
      addresses.push(address);
      if (currency === 'USDC') await devnet.transfer('USDC', address, amount);
      else {
        const payer = usdt.connect(devnet.payer) as Contract;
        await (await payer.getFunction('transfer')(address, parseUnits(amount, 6))).wait();
      }
    }
    await waitFor(
      async () =>
        (await api.count(
          'session_transactions t JOIN checkout_sessions s ON s.id = t.session_id',
          `s.pay_address = ANY($1) AND t.status = 'Confirmed'`,
          [addresses],
        )) === addresses.length,
      TIMEOUT_MS,
      'payments confirmed',
    );
    return addresses;
  }

  async function tokenBalance(currency: 'USDT' | 'USDC', address: string): Promise<bigint> {
    if (currency === 'USDC') return devnet.balanceOf('USDC', address);
    return (await usdt.getFunction('balanceOf')(address)) as bigint;
  }

  async function sweepsOf(address: string): Promise<SweepRow[]> {
    return api.dataSource.query(
      `SELECT s.id, s.status, s.destination, s.tx_hash, s.error_reason
         FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE lower(i.address) = lower($1) ORDER BY s.created_at`,
      [address],
    );
  }

  async function sweep(id: string): Promise<SweepRow> {
    const [row]: SweepRow[] = await api.dataSource.query(
      `SELECT id, status, destination, tx_hash, error_reason FROM sweeps WHERE id = $1`,
      [id],
    );
    return row;
  }

  async function attempts(sweepId: string) {
    const rows: Array<{
      tx_hash: string;
      raw_transaction: string;
      status: string;
      max_fee_per_gas: string;
    }> = await api.dataSource.query(
      `SELECT tx_hash, raw_transaction, status, max_fee_per_gas::text FROM sweep_attempts
          WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );
    return rows;
  }

  /** Ledger lines per account of the entries whose reference starts so. */
  async function booked(
    referencePrefix: string,
  ): Promise<Array<{ account: string; total: string }>> {
    const rows: Array<{ account: string; total: string }> = await api.dataSource.query(
      `SELECT l.account, sum(l.amount)::text AS total
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference LIKE $1 GROUP BY l.account ORDER BY l.account`,
      [`${referencePrefix}%`],
    );
    return rows.map((row) => ({ account: row.account, total: new Decimal(row.total).toFixed() }));
  }

  /** The sweeper's fee for the transaction, as booked, must be its receipt's to the wei. */
  async function expectFeeBooked(txHash: string): Promise<void> {
    const receipt = (await devnet.provider.getTransactionReceipt(txHash))!;
    const wei = new Decimal((receipt.gasUsed * receipt.gasPrice).toString()).div('1e18').toFixed();
    expect(await booked(`network_fee:ETHEREUM:${txHash}`)).toEqual([
      { account: 'network_fees:ETHEREUM:ETH', total: wei },
      { account: 'sweeper:ETHEREUM:ETH', total: new Decimal(wei).negated().toFixed() },
    ]);
  }

  /** Passes until no sweep is in flight and `done` holds. */
  async function passUntil(done: () => Promise<boolean>, what: string): Promise<void> {
    await waitFor(
      async () => {
        const report = await pass();
        return (
          report.sweeps.length === 0 &&
          (await api.count('sweeps', `network = 'ETHEREUM' AND status = 'Processing'`)) === 0 &&
          done()
        );
      },
      TIMEOUT_MS,
      what,
    );
  }

  it(
    'defers planning while gas is above the cap: nothing signed',
    async () => {
      await useSettings({ maxGasPriceGwei: '0.0000001' });
      await paidSessions('USDT', ['20']);
      const sweepsBefore = await api.count('sweeps');
      const attemptsBefore = await api.count('sweep_attempts');
      const report = await pass();
      expect(report.deferred).toBe('gas_price');
      expect(report.sweeps).toEqual([]);
      expect(await api.count('sweeps')).toBe(sweepsBefore);
      expect(await api.count('sweep_attempts')).toBe(attemptsBefore);
    },
    TIMEOUT_MS,
  );

  it(
    'never bids above the cap: a sweep planned just under it pays no more than the cap',
    async () => {
      const addresses = await paidSessions('USDT', ['19']);
      // The cap at today's gas price: planning is allowed, the usual bid (twice the base fee plus
      // the tip) would pass it.
      const cap = BigInt(await devnet.provider.send('eth_gasPrice', []));
      await useSettings({ maxGasPriceGwei: formatUnits(cap, 'gwei') });
      await automine(false);
      const signed = await pass();
      expect(signed.sweeps).toHaveLength(1);
      const [attempt] = await attempts(signed.sweeps[0]);
      expect(BigInt(attempt.max_fee_per_gas)).toBeLessThanOrEqual(cap);
      // The base fee jumps past the cap: the sweep must wait, not pay it.
      await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [
        '0x' + (cap + 1n).toString(16),
      ]);
      await devnet.provider.send('evm_mine', []);
      const receipt = await devnet.provider.getTransactionReceipt(attempt.tx_hash);
      expect(receipt === null || receipt.gasPrice <= cap).toBe(true);
      // Cheaper blocks follow (and the cap is lifted): the same sweep goes through.
      await useSettings({});
      await automine(true);
      await devnet.provider.send('evm_mine', []);
      await passUntil(
        async () => (await tokenBalance('USDT', addresses[0])) === 0n,
        'the capped sweep through',
      );
      expect((await sweep(signed.sweeps[0])).status).toBe('Completed');
    },
    2 * TIMEOUT_MS,
  );

  it(
    'waits with a stuck sweep while outbidding it would pass the cap, then replaces it with the same nonce; one attempt mined and booked once',
    async () => {
      await useSettings({});
      const addresses = await paidSessions('USDT', ['21']);
      await automine(false);
      const signed = await pass();
      expect(signed.sweeps).toHaveLength(1);
      const sweepId = signed.sweeps[0];
      const [first] = await attempts(sweepId);
      // The cap at the first bid: any replacement would pass it, so the sweep waits, still live.
      await useSettings({ maxGasPriceGwei: formatUnits(BigInt(first.max_fee_per_gas), 'gwei') });
      const waitingSince = Date.now();
      let replaced = 0;
      await waitFor(
        async () => {
          replaced += (await pass()).tracked.replaced;
          return Date.now() - waitingSince > 3_000;
        },
        TIMEOUT_MS,
        'three seconds of passes past PAYOUT_REPLACE_AFTER_MS',
      );
      expect(replaced).toBe(0);
      expect((await sweep(sweepId)).status).toBe('Processing');
      expect(await attempts(sweepId)).toHaveLength(1);

      await useSettings({});
      await waitFor(async () => (await pass()).tracked.replaced > 0, TIMEOUT_MS, 'a replacement');
      const both = await attempts(sweepId);
      expect(both).toHaveLength(2);
      const [original, replacement] = both.map((attempt) =>
        Transaction.from(attempt.raw_transaction),
      );
      expect(replacement.nonce).toBe(original.nonce);
      expect(replacement.data).toBe(original.data);
      expect(replacement.maxFeePerGas! > original.maxFeePerGas!).toBe(true);
      expect(replacement.maxPriorityFeePerGas! > original.maxPriorityFeePerGas!).toBe(true);

      await devnet.provider.send('evm_mine', []);
      await automine(true);
      await passUntil(
        async () => (await sweep(sweepId)).status === 'Completed',
        'the sweep completed',
      );
      const done = await sweep(sweepId);
      expect(both.map((attempt) => attempt.tx_hash)).toContain(done.tx_hash);
      const other = both.find((attempt) => attempt.tx_hash !== done.tx_hash)!;
      expect(await devnet.provider.getTransaction(other.tx_hash)).toBeNull();
      expect((await attempts(sweepId)).find((a) => a.tx_hash === other.tx_hash)!.status).toBe(
        'Superseded',
      );
      // Swept once, by the mined attempt.
      expect(await booked(`sweep:ETHEREUM:${done.tx_hash}:`)).toEqual([
        { account: 'deposits:ETHEREUM:USDT', total: '-21' },
        { account: 'hot_wallet:ETHEREUM:USDT', total: '21' },
      ]);
      expect(await booked(`sweep:ETHEREUM:${other.tx_hash}:`)).toEqual([]);
      expect(await booked(`network_fee:ETHEREUM:${other.tx_hash}`)).toEqual([]);
      await expectFeeBooked(done.tx_hash!);
      for (const address of addresses) expect(await tokenBalance('USDT', address)).toBe(0n);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'records a reverted sweep as Failed with its gas booked, and sweeps its addresses again',
    async () => {
      const addresses = await paidSessions('USDT', ['22', '23']);
      await automine(false);
      const signed = await pass();
      expect(signed.sweeps).toHaveLength(1);
      const sweepId = signed.sweeps[0];
      // The delegate reverts for the one block the batch is mined in.
      const code = await devnet.provider.getCode(delegate);
      await devnet.provider.send('anvil_setCode', [delegate, REVERTING_CODE]);
      await devnet.provider.send('evm_mine', []);
      await devnet.provider.send('anvil_setCode', [delegate, code]);
      await automine(true);
      await waitFor(
        async () => {
          await pass();
          return (await sweep(sweepId)).status !== 'Processing';
        },
        TIMEOUT_MS,
        'the reverted sweep ended',
      );

      const failed = await sweep(sweepId);
      expect(failed.status).toBe('Failed');
      expect(failed.error_reason).toMatch(/reverted/);
      expect((await devnet.provider.getTransactionReceipt(failed.tx_hash!))!.status).toBe(0);
      await expectFeeBooked(failed.tx_hash!);
      expect(await booked(`sweep:ETHEREUM:${failed.tx_hash}:`)).toEqual([]);
      // A reverted batch says nothing against the addresses: no failure counted towards freezing.
      expect(
        await api.count(
          'sweep_addresses',
          `network = 'ETHEREUM' AND address = ANY($1) AND failures = 0 AND frozen_at IS NULL`,
          [addresses],
        ),
      ).toBe(2);

      await passUntil(
        async () =>
          (await tokenBalance('USDT', addresses[0])) +
            (await tokenBalance('USDT', addresses[1])) ===
          0n,
        'the addresses swept again',
      );
      const again = (await sweepsOf(addresses[0])).filter((row) => row.status === 'Completed');
      expect(again).toHaveLength(1);
      expect(await booked(`sweep:ETHEREUM:${again[0].tx_hash}:`)).toEqual([
        { account: 'deposits:ETHEREUM:USDT', total: '-45' },
        { account: 'hot_wallet:ETHEREUM:USDT', total: '45' },
      ]);
      // The authorizations of the reverted batch took effect all the same (EIP-7702).
      expect(
        (await devnet.provider.getTransaction(again[0].tx_hash!))!.authorizationList ?? [],
      ).toEqual([]);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'sweeps the rest of a batch around a blacklisted address, which after three refusals is frozen and left alone',
    async () => {
      const [frozen, ...others] = await paidSessions('USDT', ['24', '25', '26']);
      frozenAddress = frozen;
      await (await usdt.getFunction('addBlackList')(frozen)).wait();
      await passUntil(
        async () =>
          (await api.count(
            'sweep_addresses',
            `network = 'ETHEREUM' AND address = $1 AND failures = 3 AND frozen_at IS NOT NULL`,
            [frozen],
          )) === 1,
        'three refusals, then frozen',
      );
      for (const address of others) expect(await tokenBalance('USDT', address)).toBe(0n);
      expect(await tokenBalance('USDT', frozen)).toBe(parseUnits('24', 6));
      const tried = await sweepsOf(frozen);
      expect(tried.map((row) => row.status)).toEqual(['Completed', 'Completed', 'Completed']);
      // Each attempt is a SweepFailed event on chain, and nothing of it booked.
      const refusals = await devnet.provider.getLogs({
        address: delegate,
        topics: [
          SWEEP_FAILED.topicHash,
          `0x${getAddress(frozen).slice(2).toLowerCase().padStart(64, '0')}`,
        ],
        fromBlock: 0,
        toBlock: 'latest',
      });
      expect(refusals.map((log) => log.transactionHash).sort()).toEqual(
        tried.map((row) => row.tx_hash).sort(),
      );
      const items: Array<{ status: string }> = await api.dataSource.query(
        `SELECT status FROM sweep_items WHERE address = $1`,
        [frozen],
      );
      expect(items.map((item) => item.status)).toEqual(['Failed', 'Failed', 'Failed']);
      // Frozen: never tried again.
      for (let i = 0; i < 3; i++) expect((await pass()).sweeps).toEqual([]);
      expect(await sweepsOf(frozen)).toHaveLength(3);
      // The other two went in the first batch, with it.
      expect((await sweepsOf(others[0]))[0].id).toBe(tried[0].id);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'sends what comes in past the hot wallet target to the treasury, booked to treasury',
    async () => {
      await useSettings({ hotWalletTarget: { USDC: '1' } });
      const treasuryBefore = await tokenBalance('USDC', DEVNET_TREASURY);
      const hotBefore = await tokenBalance('USDC', DEVNET_ACCOUNTS.hotWallet.address);
      const [address] = await paidSessions('USDC', ['30']);
      await passUntil(
        async () => (await tokenBalance('USDC', address)) === 0n,
        'the address swept',
      );
      const [row] = await sweepsOf(address);
      expect(row).toMatchObject({ status: 'Completed', destination: 'treasury' });
      expect((await tokenBalance('USDC', DEVNET_TREASURY)) - treasuryBefore).toBe(
        parseUnits('30', 6),
      );
      expect(await tokenBalance('USDC', DEVNET_ACCOUNTS.hotWallet.address)).toBe(hotBefore);
      expect(await booked(`sweep:ETHEREUM:${row.tx_hash}:`)).toEqual([
        { account: 'deposits:ETHEREUM:USDC', total: '-30' },
        { account: 'treasury:ETHEREUM:USDC', total: '30' },
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    'treasury:sweep and treasury:status print their JSON',
    async () => {
      await useSettings({});
      await suite.closeContext();
      const cli = await CliProcess.shared();
      try {
        const [address] = await paidSessions('USDT', ['27']);
        const before = await cli.run('treasury:status', '--network', 'ETHEREUM');
        expect(before.code).toBe(0);
        const [{ tokens: tokensBefore }] = JSON.parse(before.stdout);
        const swept = await cli.run('treasury:sweep', '--network', 'ETHEREUM');
        expect(swept.stderr).toBe('');
        expect(swept.code).toBe(0);
        const [summary] = JSON.parse(swept.stdout);
        expect(summary).toMatchObject({ network: 'ETHEREUM', busy: 0, live: 0 });
        expect(summary.signed).toHaveLength(1);
        expect(summary.completed).toBe(1);
        expect(await tokenBalance('USDT', address)).toBe(0n);

        const status = await cli.run('treasury:status');
        expect(status.code).toBe(0);
        const [ethereum] = JSON.parse(status.stdout);
        expect(ethereum).toMatchObject({
          network: 'ETHEREUM',
          sweeper: SWEEPER.address,
          deferred: false,
          live_sweeps: 0,
        });
        expect(ethereum.sweeper_native).toMatch(/^[0-9.]+ ETH$/);
        expect(ethereum.frozen_addresses).toContainEqual(
          expect.objectContaining({ currency: 'USDT', address: frozenAddress }),
        );
        type TokenStatus = {
          currency: string;
          books: Record<string, string>;
          eligible: { addresses: number };
        };
        const usdtOf = (tokens: TokenStatus[]) =>
          tokens.find((token) => token.currency === 'USDT')!;
        expect(ethereum.tokens.map((token: TokenStatus) => token.currency)).toEqual([
          'USDT',
          'USDC',
        ]);
        // The books moved the 27 from deposit addresses to the hot wallet.
        const moved = (field: string) =>
          new Decimal(usdtOf(ethereum.tokens).books[field])
            .minus(usdtOf(tokensBefore).books[field])
            .toFixed();
        expect(moved('hot_wallet')).toBe('27');
        expect(moved('deposit_addresses')).toBe('-27');
        expect(usdtOf(tokensBefore).eligible.addresses).toBe(1);
        // Nothing left to sweep: the frozen address is not a candidate.
        expect(usdtOf(ethereum.tokens).eligible.addresses).toBe(0);
      } finally {
        cli.remove();
      }
    },
    2 * TIMEOUT_MS,
  );
});
