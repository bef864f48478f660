import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Contract, parseEther, Wallet } from 'ethers';
import type { Registry } from 'prom-client';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { QUEUES, RECONCILIATION_JOBS } from '@app/common';
import Decimal from 'decimal.js';
import { fromBaseUnits, LedgerService } from '@app/ledger';
import { METRICS_REGISTRY } from '@app/metrics';
import {
  FundingBooks,
  ReconciliationRepository,
  ReconciliationRow,
  ReconciliationService,
} from '@app/treasury';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { CliProcess, CliResult } from '../support/cli-process';
import { Devnet, DEVNET_ACCOUNTS, networksFileJsonOf, startDevnet } from '../support/devnet';
import { rawTransaction } from '../support/devnet-networks';
import { startWorker } from '../support/in-process-worker';
import { parkEarlierPayouts, setTokenBalance, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// A network no other suite pays out on: its books hold only this suite's hot wallet.
const NETWORK = 'OPTIMISM';
const ERC20 = ['function transfer(address to, uint256 amount) returns (bool)'];

/*
 * The books know where every unit is, on a real anvil chain mapped as OPTIMISM with a hot wallet
 * of its own (no genesis balance): the operator's funding booked from its transactions, deposits,
 * payouts with the gas of their receipts, unmatched transfers, and reconciliation against the
 * chain through Multicall3.
 */
describe('Treasury books and reconciliation on a real chain', () => {
  const hot = Wallet.createRandom();
  let devnet: Devnet;
  let api: TestApi;
  let worker: INestApplicationContext;
  let cli: CliProcess;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;
  let payAddress: string;

  beforeAll(async () => {
    [devnet, cli] = await Promise.all([startDevnet(), CliProcess.shared()]);
    environment = useChainEnvironment(networksFileJsonOf([devnet.networkEntry(NETWORK)]), {
      WATCH_NETWORKS: NETWORK,
      DEPOSIT_SCAN_INTERVAL_MS: '200',
      HOT_WALLETS_FILE: writeHotWalletsFile({ [NETWORK]: hot.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: `${NETWORK}=0.5`,
      PAYOUT_REVIEW_THRESHOLD: '5000',
      FEE_PERCENT: '1',
    });
    api = await TestApi.start();
    await forgetChain(api.app, NETWORK);
    await parkEarlierPayouts(api.dataSource);
    worker = await startWorker();
  });

  afterAll(async () => {
    cli?.remove();
    await worker?.close();
    await api?.close();
    await devnet?.stop();
    environment?.restore();
  });

  const json = (result: CliResult): unknown => {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };
  const bookFunding = (tx: string) =>
    cli.run('treasury:book-funding', '--network', NETWORK, '--tx', tx);
  const linesOf = async (reference: string) =>
    api.dataSource.query(
      `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 ORDER BY l.account`,
      [reference],
    );
  /** The receipt's fee, as anvil itself reports it, in whole ETH. */
  const receiptFee = async (txHash: string) => {
    const receipt = await devnet.provider.getTransactionReceipt(txHash);
    return fromBaseUnits(receipt!.gasUsed * receipt!.gasPrice, 18);
  };
  const payout = async (id: string) =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body;
  const createPayout = async (amount: string) =>
    (
      await api
        .post(
          '/v1/payouts',
          merchant,
          { amount, currency: 'USDT', network: NETWORK, to_address: Wallet.createRandom().address },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201)
    ).body;
  const waitForPayout = async (id: string, status: string) => {
    await waitFor(async () => (await payout(id)).status === status, 60_000, `${id} ${status}`);
    return payout(id);
  };

  it('books the operator funding of the hot wallet (ETH and tokens) from its transactions, once', async () => {
    const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    const native = await (
      await deployer.sendTransaction({ to: hot.address, value: parseEther('2') })
    ).wait();
    const nativeHash = native!.hash.toLowerCase();
    const expectedNative = {
      network: NETWORK,
      tx_hash: nativeHash,
      block: native!.blockNumber,
      entries: [
        {
          reference: `funding:${NETWORK}:${nativeHash}:native`,
          account: `hot_wallet:${NETWORK}:ETH`,
          currency: 'ETH',
          amount: '2',
          booked: true,
        },
        {
          reference: `funding:${NETWORK}:${nativeHash}:native`,
          account: `owner_funding:${NETWORK}:ETH`,
          currency: 'ETH',
          amount: '-2',
          booked: true,
        },
      ],
    };
    expect(json(await bookFunding(nativeHash))).toEqual(expectedNative);
    // Again: nothing new is booked, and it says so.
    const again = json(await bookFunding(nativeHash)) as typeof expectedNative;
    expect(again.entries.map((entry) => entry.booked)).toEqual([false, false]);
    expect(await linesOf(`funding:${NETWORK}:${nativeHash}:native`)).toHaveLength(2);

    const tokens = await devnet.transfer('USDT', hot.address, '1000');
    const report = json(await bookFunding(tokens.txHash)) as typeof expectedNative;
    expect(report.entries).toEqual([
      expect.objectContaining({
        account: `hot_wallet:${NETWORK}:USDT`,
        amount: '1000',
        booked: true,
      }),
      expect.objectContaining({ account: `owner_funding:${NETWORK}:USDT`, amount: '-1000' }),
    ]);
    expect(report.entries[0].reference).toMatch(
      new RegExp(`^funding:${NETWORK}:${tokens.txHash}:\\d+$`),
    );
    // Four CLI runs, each booting the application: about a minute apiece on a loaded machine.
  }, 300_000);

  it('refuses, with a clear message and nothing booked, a transaction unknown or moving nothing of ours', async () => {
    const unknown = await bookFunding(`0x${'ab'.repeat(32)}`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('is unknown to the node; nothing was booked');

    const elsewhere = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    const foreign = await bookFunding(elsewhere.txHash);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain(
      'moves nothing of the service wallets and none of them sent it',
    );
    expect(await api.count('ledger_entries', `reference LIKE $1`, [`%${elsewhere.txHash}%`])).toBe(
      0,
    );
  });

  it('books a completed payout out of the hot wallet and its receipt fee to the wei', async () => {
    merchant = await api.createMerchant();
    const { body: session } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '20',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: NETWORK,
      })
      .expect(201);
    payAddress = session.pay_address;
    await devnet.transfer('USDT', payAddress, '20');
    await waitFor(
      async () =>
        (await api.get(`/v1/checkout/sessions/${session.id}`, merchant).expect(200)).body.status ===
        'Paid',
      60_000,
      'the session paid',
    );

    const created = await createPayout('10');
    const completed = await waitForPayout(created.id, 'Completed');
    const fee = await receiptFee(completed.tx_hash);
    expect(fee.isPositive()).toBe(true);
    expect(await linesOf(`network_fee:${NETWORK}:${completed.tx_hash}`)).toEqual([
      { account: `hot_wallet:${NETWORK}:ETH`, amount: fee.negated().toFixed(18) },
      { account: `network_fees:${NETWORK}:ETH`, amount: fee.toFixed(18) },
    ]);
    expect(await linesOf(`payout:${created.id}:completed`)).toEqual([
      { account: `fees:${NETWORK}:USDT`, amount: '-0.500000000000000000' },
      { account: `hot_wallet:${NETWORK}:USDT`, amount: '-9.500000000000000000' },
      expect.objectContaining({ account: expect.stringMatching(/^merchant_held:/) }),
    ]);
  });

  it('books the receipt fee of a payout whose transaction reverts', async () => {
    await devnet.provider.send('evm_setAutomine', [false]);
    const hotBalance = await devnet.balanceOf('USDT', hot.address);
    let txHash: string;
    try {
      const created = await createPayout('5');
      await waitFor(
        async () =>
          (await api.count('payout_attempts', `payout_id = $1 AND status = 'Broadcast'`, [
            created.id,
          ])) === 1,
        30_000,
        'the broadcast',
      );
      // Emptied after the payout was signed: the transfer reverts, its gas is paid all the same.
      await setTokenBalance(devnet, 'USDT', hot.address, 0n);
      await devnet.provider.send('evm_mine', []);
      const failed = await waitForPayout(created.id, 'Failed');
      txHash = failed.tx_hash;
    } finally {
      await setTokenBalance(devnet, 'USDT', hot.address, hotBalance);
      await devnet.provider.send('evm_setAutomine', [true]);
    }
    const fee = await receiptFee(txHash);
    expect(await linesOf(`network_fee:${NETWORK}:${txHash}`)).toEqual([
      { account: `hot_wallet:${NETWORK}:ETH`, amount: fee.negated().toFixed(18) },
      { account: `network_fees:${NETWORK}:ETH`, amount: fee.toFixed(18) },
    ]);
  });

  it('books an unmatched transfer on a deposit address once it is confirmed, once', async () => {
    // The other stablecoin to the paid session's address: wrong_token, owed back to its sender.
    const sent = await devnet.transfer('USDC', payAddress, '7');
    await devnet.mine(2);
    await waitFor(
      async () =>
        (await api.count('unmatched_transfers', `tx_hash = $1 AND booked`, [sent.txHash])) === 1,
      60_000,
      'the unmatched transfer booked',
    );
    const [{ id }] = await api.dataSource.query(
      `SELECT id FROM unmatched_transfers WHERE tx_hash = $1`,
      [sent.txHash],
    );
    expect(await linesOf(`unmatched_transfer:${id}:booked:1`)).toEqual([
      { account: `deposits:${NETWORK}:USDC`, amount: '7.000000000000000000' },
      { account: `unmatched:${NETWORK}:USDC`, amount: '-7.000000000000000000' },
    ]);
    await devnet.mine(3);
    expect(
      await api.count('ledger_entries', `reference LIKE $1`, [`unmatched_transfer:${id}:%`]),
    ).toBe(1);
  });

  it('reverses an unmatched transfer a reorg took away, and books it again when it is mined again', async () => {
    const snapshot = await devnet.snapshot();
    const sent = await devnet.transfer('USDC', payAddress, '4');
    const raw = await rawTransaction(devnet.provider, sent.txHash);
    await devnet.mine(2);
    const bookedOnce = async (state: boolean) =>
      (await api.count('unmatched_transfers', `tx_hash = $1 AND booked = $2`, [
        sent.txHash,
        state,
      ])) === 1;
    await waitFor(() => bookedOnce(true), 60_000, 'the unmatched transfer booked');
    const [{ id }] = await api.dataSource.query(
      `SELECT id FROM unmatched_transfers WHERE tx_hash = $1`,
      [sent.txHash],
    );

    await devnet.revert(snapshot);
    await devnet.mine(4);
    await waitFor(() => bookedOnce(false), 60_000, 'the booking reversed');
    expect(await linesOf(`unmatched_transfer:${id}:reversed:1`)).toEqual([
      { account: `deposits:${NETWORK}:USDC`, amount: '-4.000000000000000000' },
      { account: `unmatched:${NETWORK}:USDC`, amount: '4.000000000000000000' },
    ]);

    // The same signed transaction mined again: the same record, booked again.
    await devnet.provider.send('eth_sendRawTransaction', [raw]);
    await devnet.mine(2);
    await waitFor(() => bookedOnce(true), 60_000, 'the unmatched transfer booked again');
    expect(await linesOf(`unmatched_transfer:${id}:booked:2`)).toHaveLength(2);
  });

  it('reconciles books = chain to the base unit after funding, deposits and payouts (CLI exit 0)', async () => {
    const rows = json(await cli.run('treasury:reconcile', '--network', NETWORK)) as Array<
      Record<string, unknown>
    >;
    const head = await devnet.head();
    expect(
      rows.map(({ currency, difference, block }) => ({ currency, difference, block })),
    ).toEqual([
      { currency: 'USDT', difference: '0', block: head },
      { currency: 'USDC', difference: '0', block: head },
      { currency: 'ETH', difference: '0', block: head },
    ]);
    const usdt = rows[0];
    // The hot wallet and the pay address (the session's, which also took the unmatched USDC), and
    // the pay addresses earlier suites used on OPTIMISM (the test database is shared; on this
    // chain they hold nothing).
    expect(usdt).toMatchObject({ network: NETWORK });
    expect(usdt.addresses).toBeGreaterThanOrEqual(2);
    const onChain =
      (await devnet.balanceOf('USDT', hot.address)) + (await devnet.balanceOf('USDT', payAddress));
    expect(usdt.onchain).toBe(fromBaseUnits(onChain, 6).toFixed());
    expect(rows[1]).toMatchObject({ currency: 'USDC', onchain: '11', books: '11' });
    expect(rows[2]).toMatchObject({
      currency: 'ETH',
      onchain: fromBaseUnits(await devnet.provider.getBalance(hot.address), 18).toFixed(),
      pending: [],
    });
  });

  it('reports an unbooked transfer out of the hot wallet, alerts on the second run, and the CLI exits 1', async () => {
    const token = new Contract(
      devnet.tokens.USDT.contract,
      ERC20,
      new Wallet(hot.privateKey, devnet.provider),
    );
    await (await token.getFunction('transfer')(Wallet.createRandom().address, 1_000_000n)).wait();
    const reconciliation = worker.get(ReconciliationService);
    const first = await reconciliation.reconcile(NETWORK, 'incremental');
    expect(first?.find((row) => row.currency === 'USDT')).toMatchObject({
      difference: '-1',
      persistent: false,
    });
    // Its gas, too, left the hot wallet without an entry.
    expect(first?.find((row) => row.currency === 'ETH')?.difference).toMatch(/^-0\.0+\d+$/);
    const second = await reconciliation.reconcile(NETWORK, 'incremental');
    expect(second?.find((row) => row.currency === 'USDT')).toMatchObject({
      difference: '-1',
      persistent: true,
    });
    const metrics = await worker.get<Registry>(METRICS_REGISTRY).metrics();
    expect(metrics).toContain(
      `payments_treasury_reconciliation_difference{network="${NETWORK}",currency="USDT",location="hot_wallet"} -1`,
    );
    expect(metrics).toContain(
      `payments_treasury_reconciliation_difference{network="${NETWORK}",currency="USDT",location="deposits"} 0`,
    );

    const result = await cli.run('treasury:reconcile', '--network', NETWORK);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Books differ from the chain for ${NETWORK} USDT (-1; hot_wallet -1)`,
    );
    expect(JSON.parse(result.stdout)).toContainEqual(
      expect.objectContaining({ currency: 'USDT', difference: '-1', addresses: 2 }),
    );
  });
  it('reads native coin on deposit addresses where the books hold some there (gas top-up sweeps)', async () => {
    const reconciliation = worker.get(ReconciliationService);
    const ethDifference = async () =>
      (await reconciliation.reconcile(NETWORK, 'full'))?.find((row) => row.currency === 'ETH')
        ?.difference;
    const before = await ethDifference();
    // What a gas top-up leaves: ETH on a deposit address, booked as deposits:N:ETH.
    const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    await (
      await deployer.sendTransaction({ to: payAddress, value: 1_000_000_000_000_000n })
    ).wait();
    await api.dataSource.transaction((manager) =>
      api.app.get(LedgerService).post(manager, {
        reference: `test-top-up:${randomUUID()}`,
        kind: 'test',
        lines: [
          {
            account: `deposits:${NETWORK}:ETH`,
            amount: new Decimal('0.001'),
            currency: 'ETH',
            network: NETWORK,
          },
          {
            account: `owner_funding:${NETWORK}:ETH`,
            amount: new Decimal('-0.001'),
            currency: 'ETH',
            network: NETWORK,
          },
        ],
      }),
    );
    expect(await ethDifference()).toBe(before);
  });

  /** A test entry straight into the ledger: what a misbooking (or a booking the chain lacks) is. */
  const postTest = async (lines: Array<[account: string, amount: string]>) =>
    api.dataSource.transaction((manager) =>
      api.app.get(LedgerService).post(manager, {
        reference: `test-books:${randomUUID()}`,
        kind: 'test',
        lines: lines.map(([account, amount]) => ({
          account,
          amount: new Decimal(amount),
          currency: account.split(':')[2],
          network: NETWORK,
        })),
      }),
    );
  const usdcOf = async (mode: 'full' | 'incremental') =>
    (await worker.get(ReconciliationService).reconcile(NETWORK, mode))?.find(
      (row) => row.currency === 'USDC',
    );
  /** The locations whose difference is not 0, with it. */
  const differingOf = (row: ReconciliationRow | undefined) =>
    Object.fromEntries(
      row!.locations
        .filter((location) => location.difference !== '0')
        .map((location) => [location.location, location.difference]),
    );
  const oldTreasury = Wallet.createRandom().address;

  it('keeps reading a treasury address a rotation replaced, for as long as its books may hold something', async () => {
    await api.dataSource.query(
      `INSERT INTO treasury_wallets (network, role, address) VALUES ($1, 'treasury', $2)`,
      [NETWORK, oldTreasury],
    );
    await setTokenBalance(devnet, 'USDC', oldTreasury, 2_000_000n);
    await postTest([
      [`treasury:${NETWORK}:USDC`, '2'],
      [`owner_funding:${NETWORK}:USDC`, '-2'],
    ]);
    expect(await usdcOf('full')).toMatchObject({ difference: '0' });
    // The rotation overwrites the row: the 2 USDC stay on the old address, booked in treasury.
    await api.dataSource.query(
      `UPDATE treasury_wallets SET address = $2 WHERE network = $1 AND role = 'treasury'`,
      [NETWORK, Wallet.createRandom().address],
    );
    // A later block: a full run forgets every stored balance it did not read again.
    await devnet.mine(1);
    for (const mode of ['full', 'incremental'] as const) {
      const row = await usdcOf(mode);
      expect(row).toMatchObject({ difference: '0', persistent: false });
      expect(row?.locations).toContainEqual({
        location: 'treasury',
        onchain: '2',
        books: '2',
        difference: '0',
        addresses: 2,
      });
    }
  });

  it('stores only the balances that changed: a full run over unchanged addresses writes no row', async () => {
    const stored = async () =>
      (await api.dataSource.query(
        `SELECT currency, address, balance::text, block_number::int AS block, updated_at
           FROM reconciliation_balances WHERE network = $1 ORDER BY currency, address`,
        [NETWORK],
      )) as Array<{ currency: string; address: string; balance: string; block: number }>;
    await usdcOf('full');
    const before = await stored();
    await devnet.mine(1);
    await usdcOf('full');
    expect(await stored()).toEqual(before);

    // One balance changes: only its row is written, with the block it was read at.
    await setTokenBalance(devnet, 'USDC', oldTreasury, 3_000_000n);
    const moved = await usdcOf('full');
    const after = await stored();
    expect(
      after.filter((row, index) => JSON.stringify(row) !== JSON.stringify(before[index])),
    ).toEqual([
      expect.objectContaining({
        currency: 'USDC',
        address: oldTreasury.toLowerCase(),
        balance: '3000000',
        block: moved!.block,
      }),
    ]);
    await setTokenBalance(devnet, 'USDC', oldTreasury, 2_000_000n);
    expect(await usdcOf('full')).toMatchObject({ difference: '0' });
  }, 60_000);

  it('reconciles per location: a unit booked to the wrong location fails the CLI though the total matches', async () => {
    // Booked as swept into the treasury, while the chain still has it on the deposit address.
    await postTest([
      [`treasury:${NETWORK}:USDC`, '1'],
      [`deposits:${NETWORK}:USDC`, '-1'],
    ]);
    const row = await usdcOf('full');
    expect(row).toMatchObject({ difference: '0' });
    expect(differingOf(row)).toEqual({ deposits: '1', treasury: '-1' });
    const again = await usdcOf('incremental');
    expect(again).toMatchObject({ difference: '0', persistent: true });
    // The gauge shows it per location, though the currency's total is 0.
    const metrics = await worker.get<Registry>(METRICS_REGISTRY).metrics();
    const gauge = (location: string) =>
      `payments_treasury_reconciliation_difference{network="${NETWORK}",currency="USDC",location="${location}"}`;
    expect(metrics).toContain(`${gauge('deposits')} 1`);
    expect(metrics).toContain(`${gauge('treasury')} -1`);
    expect(metrics).toContain(`${gauge('hot_wallet')} 0`);

    const result = await cli.run('treasury:reconcile', '--network', NETWORK);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${NETWORK} USDC (0; deposits 1; treasury -1)`);
    expect(JSON.parse(result.stdout)).toContainEqual(
      expect.objectContaining({
        currency: 'USDC',
        difference: '0',
        locations: expect.arrayContaining([
          { location: 'deposits', onchain: '11', books: '10', difference: '1', addresses: 1 },
        ]),
      }),
    );
    await postTest([
      [`treasury:${NETWORK}:USDC`, '-1'],
      [`deposits:${NETWORK}:USDC`, '1'],
    ]);
    expect(differingOf(await usdcOf('full'))).toEqual({});
  });

  it('alerts only when the same difference persists, not on two different ones (in-flight noise)', async () => {
    const hotWallet = `hot_wallet:${NETWORK}:USDC`;
    const owner = `owner_funding:${NETWORK}:USDC`;
    await postTest([
      [hotWallet, '1'],
      [owner, '-1'],
    ]);
    expect(await usdcOf('incremental')).toMatchObject({ difference: '-1', persistent: false });
    await postTest([
      [hotWallet, '1'],
      [owner, '-1'],
    ]);
    expect(await usdcOf('incremental')).toMatchObject({ difference: '-2', persistent: false });
    expect(await usdcOf('incremental')).toMatchObject({ difference: '-2', persistent: true });
    const latest = await worker.get(ReconciliationRepository).latestDifferences();
    expect(latest).toContainEqual({
      network: NETWORK,
      currency: 'USDC',
      difference: '-2',
      locations: expect.arrayContaining([{ location: 'hot_wallet', difference: '-2' }]),
      persistent: true,
    });
    await postTest([
      [hotWallet, '-2'],
      [owner, '2'],
    ]);
    expect(await usdcOf('incremental')).toMatchObject({ difference: '0', persistent: false });
  });

  it('books moves between our wallets location to location, withdrawals out of the hot wallet and fees alone', async () => {
    // The command's own service (the CLI is treasury:book-funding's thin shell, and slow to boot).
    const book = (tx: string) => worker.get(FundingBooks).book(NETWORK, tx);
    // NUMERIC keeps the scale it was given: compare amounts as numbers.
    const exactLinesOf = async (reference: string) =>
      ((await linesOf(reference)) as Array<{ account: string; amount: string }>).map((line) => ({
        account: line.account,
        amount: new Decimal(line.amount).toFixed(),
      }));
    const treasury = Wallet.createRandom().connect(devnet.provider);
    await api.dataSource.query(
      `UPDATE treasury_wallets SET address = $2 WHERE network = $1 AND role = 'treasury'`,
      [NETWORK, treasury.address],
    );
    const deployer = new Wallet(DEVNET_ACCOUNTS.deployer.privateKey, devnet.provider);
    const coin = await (
      await deployer.sendTransaction({ to: treasury.address, value: parseEther('1') })
    ).wait();
    await book(coin!.hash);
    const usdc = await devnet.transfer('USDC', treasury.address, '5');
    await book(usdc.txHash);

    // A refill: the treasury sends 2 USDC to the hot wallet, and pays the gas.
    const asTreasury = new Contract(devnet.tokens.USDC.contract, ERC20, treasury);
    const refill = await (await asTreasury.getFunction('transfer')(hot.address, 2_000_000n)).wait();
    await book(refill!.hash);
    const refillFee = await receiptFee(refill!.hash);
    expect(await exactLinesOf(`network_fee:${NETWORK}:${refill!.hash}`)).toEqual([
      { account: `network_fees:${NETWORK}:ETH`, amount: refillFee.toFixed() },
      { account: `treasury:${NETWORK}:ETH`, amount: refillFee.negated().toFixed() },
    ]);
    const [moved] = await api.dataSource.query(
      `SELECT e.reference, e.kind FROM ledger_entries e WHERE e.reference LIKE $1`,
      [`funding:${NETWORK}:${refill!.hash}:%`],
    );
    expect(moved.kind).toBe('internal_transfer');
    expect(await exactLinesOf(moved.reference)).toEqual([
      { account: `hot_wallet:${NETWORK}:USDC`, amount: '2' },
      { account: `treasury:${NETWORK}:USDC`, amount: '-2' },
    ]);

    // A withdrawal out of the hot wallet, and a hot wallet transaction that moves nothing.
    const asHot = new Contract(devnet.tokens.USDC.contract, ERC20, hot.connect(devnet.provider));
    const out = await (
      await asHot.getFunction('transfer')(Wallet.createRandom().address, 1_000_000n)
    ).wait();
    await book(out!.hash);
    const [withdrawal] = await api.dataSource.query(
      `SELECT reference, kind FROM ledger_entries WHERE reference LIKE $1`,
      [`funding:${NETWORK}:${out!.hash}:%`],
    );
    expect(withdrawal.kind).toBe('owner_withdrawal');
    expect(await exactLinesOf(withdrawal.reference)).toEqual([
      { account: `hot_wallet:${NETWORK}:USDC`, amount: '-1' },
      { account: `owner_funding:${NETWORK}:USDC`, amount: '1' },
    ]);
    expect(await exactLinesOf(`network_fee:${NETWORK}:${out!.hash}`)).toContainEqual({
      account: `hot_wallet:${NETWORK}:ETH`,
      amount: (await receiptFee(out!.hash)).negated().toFixed(),
    });
    const selfSend = await (
      await hot.connect(devnet.provider).sendTransaction({ to: hot.address, value: 0n })
    ).wait();
    expect(await book(selfSend!.hash)).toMatchObject({
      entries: [
        expect.objectContaining({ account: `network_fees:${NETWORK}:ETH` }),
        expect.objectContaining({ account: `hot_wallet:${NETWORK}:ETH` }),
      ],
    });

    const row = await usdcOf('full');
    expect(differingOf(row)).toEqual({});
    const eth = (await worker.get(ReconciliationService).reconcile(NETWORK, 'full'))?.find(
      (candidate) => candidate.currency === 'ETH',
    );
    expect(differingOf(eth).treasury).toBeUndefined();
  });

  it('refuses to book a payout, or a transaction moving tokens out of a deposit address (a sweep)', async () => {
    const [{ tx_hash: payoutHash }] = await api.dataSource.query(
      `SELECT a.tx_hash FROM payout_attempts a JOIN payouts p ON p.id = a.payout_id
        WHERE p.network = $1 AND p.status = 'Completed' LIMIT 1`,
      [NETWORK],
    );
    const payoutBooked = await bookFunding(payoutHash);
    expect(payoutBooked.code).toBe(2);
    expect(payoutBooked.stderr).toContain('is a payout or refund of the service');

    // What a sweep looks like: Transfer(deposit address -> hot wallet).
    await devnet.provider.send('anvil_impersonateAccount', [payAddress]);
    await devnet.provider.send('anvil_setBalance', [payAddress, '0xde0b6b3a7640000']);
    const asDeposit = new Contract(
      devnet.tokens.USDC.contract,
      ERC20,
      await devnet.provider.getSigner(payAddress),
    );
    const swept = await (await asDeposit.getFunction('transfer')(hot.address, 1_000_000n)).wait();
    const sweepBooked = await bookFunding(swept!.hash);
    expect(sweepBooked.code).toBe(2);
    expect(sweepBooked.stderr).toContain('was sent by the deposit address');
    expect(
      await api.count('ledger_entries', `reference LIKE $1`, [`%${swept!.hash.toLowerCase()}%`]),
    ).toBe(0);
    // Back where the books say it is.
    const asHot = new Contract(devnet.tokens.USDC.contract, ERC20, hot.connect(devnet.provider));
    await (await asHot.getFunction('transfer')(payAddress, 1_000_000n)).wait();
    await devnet.provider.send('anvil_stopImpersonatingAccount', [payAddress]);
  });

  it('schedules reconciliation in the worker: incremental, full and fee finality, at the configured intervals', async () => {
    const queue = worker.get<Queue>(getQueueToken(QUEUES.reconciliation));
    const schedules = (await queue.getRepeatableJobs())
      .map((job) => ({ name: job.name, every: Number(job.every) }))
      .sort((left, right) => left.name.localeCompare(right.name));
    expect(schedules).toEqual([
      { name: RECONCILIATION_JOBS.finalizeFees, every: 300_000 },
      { name: RECONCILIATION_JOBS.full, every: 3_600_000 },
      { name: RECONCILIATION_JOBS.incremental, every: 300_000 },
    ]);
  });
});
