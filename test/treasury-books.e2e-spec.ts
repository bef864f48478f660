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
import { ReconciliationService } from '@app/treasury';
import { forgetChain } from './support/chain-reset';
import { useChainEnvironment } from './support/chain-test-env';
import { CliProcess, CliResult } from './support/cli-process';
import { Devnet, DEVNET_ACCOUNTS, networksFileJsonOf, startDevnet } from './support/devnet';
import { rawTransaction } from './support/devnet-networks';
import { startWorker } from './support/in-process-worker';
import { parkEarlierPayouts, setTokenBalance, writeHotWalletsFile } from './support/payout-chain';
import { TestApi, TestMerchant } from './support/test-app';
import { waitFor } from './support/wait-for';

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
    [devnet, cli] = await Promise.all([startDevnet(), CliProcess.build('treasury-books')]);
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
  }, 180_000);

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
  }, 120_000);

  it('refuses, with a clear message and nothing booked, a transaction unknown or moving nothing of ours', async () => {
    const unknown = await bookFunding(`0x${'ab'.repeat(32)}`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('is unknown to the node; nothing was booked');

    const elsewhere = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    const foreign = await bookFunding(elsewhere.txHash);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('moves nothing into the service wallets');
    expect(await api.count('ledger_entries', `reference LIKE $1`, [`%${elsewhere.txHash}%`])).toBe(
      0,
    );
  }, 60_000);

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
  }, 120_000);

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
  }, 120_000);

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
  }, 90_000);

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
  }, 120_000);

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
  }, 120_000);

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
      `payments_treasury_reconciliation_difference{network="${NETWORK}",currency="USDT"} -1`,
    );

    const result = await cli.run('treasury:reconcile', '--network', NETWORK);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Books differ from the chain for ${NETWORK} USDT (-1)`);
    expect(JSON.parse(result.stdout)).toContainEqual(
      expect.objectContaining({ currency: 'USDT', difference: '-1', addresses: 2 }),
    );
  }, 120_000);
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
  }, 60_000);

  it('schedules reconciliation in the worker: incremental and full, at the configured intervals', async () => {
    const queue = worker.get<Queue>(getQueueToken(QUEUES.reconciliation));
    const schedules = (await queue.getRepeatableJobs())
      .map((job) => ({ name: job.name, every: Number(job.every) }))
      .sort((left, right) => left.name.localeCompare(right.name));
    expect(schedules).toEqual([
      { name: RECONCILIATION_JOBS.full, every: 3_600_000 },
      { name: RECONCILIATION_JOBS.incremental, every: 300_000 },
    ]);
  });
});
