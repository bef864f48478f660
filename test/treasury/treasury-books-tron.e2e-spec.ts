import type { INestApplicationContext } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { HotWalletKey, TronNodePayoutTransport } from '@app/chains';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { DepositWatcherService } from '@app/deposits';
import { fromBaseUnits } from '@app/ledger';
import { ReconciliationRow, ReconciliationService } from '@app/treasury';
import { writeOffChainBooks } from '../support/books-write-off';
import { forgetChain } from '../support/chain-reset';
import { useChainEnvironment } from '../support/chain-test-env';
import { CliProcess, CliResult } from '../support/cli-process';
import { FakeTronNode } from '../support/fake-tron-node';
import { startWorker } from '../support/in-process-worker';
import { parkEarlierPayouts, writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// Fixed test keys (hashes of labels): they never hold funds anywhere.
const testKey = (label: string): string => createHash('sha256').update(label).digest('hex');
const addressOf = (privateKey: string): string =>
  TronWeb.address.fromPrivateKey(privateKey) as string;
const HOT_KEY = testKey('treasury books tron hot wallet');
const HOT = addressOf(HOT_KEY);
const PAYER_KEY = testKey('treasury books tron operator');
const PAYER = addressOf(PAYER_KEY);
const USDT = TESTNET_NETWORKS.TRON.tokens.USDT!.contract;
const TRX = 1_000_000n;

const SESSIONS = '/v1/checkout/sessions';

/*
 * TRON's side of the books on the fake node, which burns TRX for energy and bandwidth as java-tron
 * does and reports it as the transaction info's `fee`: the hot wallet's funding (TRX and USDT)
 * booked from its transactions, a deposit, a payout's fee booked to the sun, and reconciliation of
 * those books against the node to a 0 difference, in total and at every location.
 *
 * The test database is shared: earlier suites ran TRON on fake nodes of their own, gone with them.
 * This one starts a new chain under the name, on both sides: forgetChain undoes their deposits,
 * and what their books still hold on TRON (a payout suite pays out of a hot wallet nobody booked
 * funding to) is written off, as an operator would after a testnet reset. Their addresses are
 * still read (they hold nothing on this node), their merchants' balances stay.
 */
describe('Treasury books on TRON (fake full node)', () => {
  let node: FakeTronNode;
  let url: string;
  let api: TestApi;
  let worker: INestApplicationContext;
  let cli: CliProcess;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;
  let transport: TronNodePayoutTransport;
  let tronWeb: TronWeb;

  beforeAll(async () => {
    node = new FakeTronNode();
    [url, cli] = await Promise.all([node.start(), CliProcess.shared()]);
    node.mineEmpty(3);
    // The operator's wallet, outside the service: what it holds is never reconciled.
    node.setTrxBalance(PAYER, 10_000n * TRX);
    node.setTokenBalance(USDT, PAYER, 1_000_000_000n);
    environment = useChainEnvironment(
      JSON.stringify({
        networks: { TRON: { rpcUrls: [url], publicRpcUrl: url, confirmations: 1 } },
      }),
      {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ TRON: HOT_KEY }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        PAYOUT_NETWORK_FEES: 'TRON=1',
      },
    );
    api = await TestApi.start();
    await forgetChain(api.app, 'TRON');
    await writeOffChainBooks(api.dataSource, 'TRON');
    await parkEarlierPayouts(api.dataSource);
    worker = await startWorker();
    merchant = await api.createMerchant();
    transport = new TronNodePayoutTransport({
      ...TESTNET_NETWORKS.TRON,
      rpcUrls: [url],
      confirmations: 1,
    });
    tronWeb = new TronWeb({ fullHost: url });
  }, 180_000);

  afterAll(async () => {
    cli?.remove();
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

  const json = (result: CliResult): unknown => {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout);
  };
  const linesOf = (reference: string) =>
    api.dataSource.query(
      `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 ORDER BY l.account`,
      [reference],
    );
  /** The transaction info's fee, as the node reports it, in sun. */
  const infoFee = async (txId: string): Promise<bigint> => {
    const response = await fetch(`${url}/wallet/gettransactioninfobyid`, {
      method: 'POST',
      body: JSON.stringify({ value: txId }),
    });
    const info = (await response.json()) as { fee?: number };
    return BigInt(info.fee ?? 0);
  };
  const sun = (amount: bigint) => `${amount / TRX}.${(amount % TRX).toString().padStart(6, '0')}`;
  /** PAYER's TRC-20 transfer, signed, broadcast and mined: its transaction id. */
  const sendUsdt = async (to: string, units: bigint): Promise<string> => {
    const signed = await transport.buildAndSign(
      new HotWalletKey('TRON', PAYER, PAYER_KEY),
      { tokenContract: USDT, to, amountBaseUnits: units },
      30_000_000n,
    );
    expect(await transport.broadcast(signed.rawTransaction)).toEqual({ kind: 'accepted' });
    node.mineBroadcasts();
    return signed.txHash;
  };
  const sendTrx = async (to: string, amount: bigint): Promise<string> => {
    const unsigned = await tronWeb.transactionBuilder.sendTrx(to, Number(amount), PAYER);
    const signed = (await tronWeb.trx.sign(unsigned, PAYER_KEY)) as { txID: string };
    expect(await transport.broadcast(JSON.stringify(signed))).toEqual({ kind: 'accepted' });
    node.mineBroadcasts();
    return signed.txID;
  };
  const bookFunding = (tx: string) =>
    cli.run('treasury:book-funding', '--network', 'TRON', '--tx', tx);

  it('books the hot wallet funding, TRX and USDT, from its transactions', async () => {
    const trx = await sendTrx(HOT, 1_000n * TRX);
    expect(json(await bookFunding(trx))).toMatchObject({
      entries: [
        {
          reference: `funding:TRON:${trx}:native`,
          account: 'hot_wallet:TRON:TRX',
          currency: 'TRX',
          amount: '1000',
          booked: true,
        },
        { account: 'owner_funding:TRON:TRX', amount: '-1000' },
      ],
    });
    const usdt = await sendUsdt(HOT, 500_000_000n);
    expect(json(await bookFunding(usdt))).toMatchObject({
      network: 'TRON',
      tx_hash: usdt,
      entries: [
        {
          reference: `funding:TRON:${usdt}:0`,
          account: 'hot_wallet:TRON:USDT',
          currency: 'USDT',
          amount: '500',
          booked: true,
        },
        { reference: `funding:TRON:${usdt}:0`, account: 'owner_funding:TRON:USDT', amount: '-500' },
      ],
    });
    expect(node.trxBalance(HOT)).toBe(1_000n * TRX);
  }, 120_000);

  it('books a deposit paid on the node into deposits, once confirmed', async () => {
    const { body: session } = await api
      .post(SESSIONS, merchant, {
        pricing_amount: '50',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    await sendUsdt(session.pay_address, 50_000_000n);
    node.mineEmpty(1);
    const watcher = api.app.get(DepositWatcherService);
    await waitFor(
      async () => {
        await watcher.scan('TRON');
        const read = await api.get(`${SESSIONS}/${session.id}`, merchant).expect(200);
        return read.body.status === 'Paid';
      },
      30_000,
      'the session paid',
    );
    const lines = await api.dataSource.query(
      `SELECT l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE l.account = 'deposits:TRON:USDT' AND e.reference LIKE $1`,
      [`checkout_session:${session.id}:%`],
    );
    expect(lines).toEqual([{ amount: '50.000000000000000000' }]);
  }, 60_000);

  it('books a completed payout fee to the sun, out of the hot wallet TRX', async () => {
    const trxBefore = node.trxBalance(HOT)!;
    const recipient = addressOf(testKey(`recipient ${randomUUID()}`));
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '25', currency: 'USDT', network: 'TRON', to_address: recipient },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    await waitFor(
      async () => {
        node.mineBroadcasts();
        return (
          (await api.get(`/v1/payouts/${body.id}`, merchant).expect(200)).body.status ===
          'Completed'
        );
      },
      30_000,
      'the payout completed',
    );
    const { tx_hash: txId } = (await api.get(`/v1/payouts/${body.id}`, merchant).expect(200)).body;
    const fee = await infoFee(txId);
    expect(fee).toBeGreaterThan(0n);
    // What the node took from the hot wallet is what the info says, and what the books say.
    expect(trxBefore - node.trxBalance(HOT)!).toBe(fee);
    expect(await linesOf(`network_fee:TRON:${txId}`)).toEqual([
      { account: 'hot_wallet:TRON:TRX', amount: `-${sun(fee)}000000000000` },
      { account: 'network_fees:TRON:TRX', amount: `${sun(fee)}000000000000` },
    ]);
    // The payout's network fee (1 USDT, PAYOUT_NETWORK_FEES) is taken from the amount sent.
    expect(node.tokenBalance(USDT, recipient)).toBe(24_000_000n);
  }, 120_000);

  it('reconciles books = chain to a 0 difference, in total and at every location (CLI exit 0)', async () => {
    const differing = (row: Pick<ReconciliationRow, 'difference' | 'locations'>) => [
      row.difference,
      ...row.locations.map((location) => `${location.location} ${location.difference}`),
    ];
    const rows = json(await cli.run('treasury:reconcile', '--network', 'TRON')) as Array<
      Pick<ReconciliationRow, 'currency' | 'onchain' | 'difference' | 'block' | 'locations'>
    >;
    // The TRON registry has no USDC.
    expect(rows.map((row) => row.currency)).toEqual(['USDT', 'TRX']);
    for (const row of rows) {
      expect(differing(row).filter((value) => !/(^| )0$/.test(value))).toEqual([]);
      expect(row.block).toBe(node.headBlockNumber);
    }
    // This suite's units are on the node and in the books: the hot wallet's 500 less the 24 the
    // payout sent, the deposit's 50, and the hot wallet's TRX less the payout's fee.
    const usdt = rows[0];
    expect(usdt.onchain).toBe('526');
    expect(usdt.locations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'hot_wallet', onchain: '476', books: '476' }),
        expect.objectContaining({ location: 'deposits', onchain: '50', books: '50' }),
      ]),
    );
    expect(rows[1].onchain).toBe(fromBaseUnits(node.trxBalance(HOT)!, 6).toFixed());

    // The worker's incremental run, from the CLI's stored balances, says the same.
    const incremental = await worker.get(ReconciliationService).reconcile('TRON', 'incremental');
    expect(incremental?.flatMap(differing).filter((value) => !/(^| )0$/.test(value))).toEqual([]);
  }, 120_000);
});
