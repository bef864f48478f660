import type { INestApplicationContext } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { HotWalletKey, TronNodePayoutTransport } from '@app/chains';
import { TESTNET_NETWORKS } from '@app/chains/networks/default-networks';
import { fromBaseUnits } from '@app/ledger';
import { ReconciliationService } from '@app/treasury';
import { useChainEnvironment } from './support/chain-test-env';
import { CliProcess } from './support/cli-process';
import { FakeTronNode } from './support/fake-tron-node';
import { startWorker } from './support/in-process-worker';
import { creditBalance } from './support/ledger-credit';
import { parkEarlierPayouts, writeHotWalletsFile } from './support/payout-chain';
import { TestApi, TestMerchant } from './support/test-app';
import { waitFor } from './support/wait-for';

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

/*
 * TRON's side of the books on the fake node, which burns TRX for energy and bandwidth as java-tron
 * does and reports it as the transaction info's `fee`: a payout's fee booked to the sun, and an
 * operator's TRC-20 funding of the hot wallet booked from its transaction info's Transfer log.
 */
describe('Treasury books on TRON (fake full node)', () => {
  let node: FakeTronNode;
  let url: string;
  let api: TestApi;
  let worker: INestApplicationContext;
  let cli: CliProcess;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    node = new FakeTronNode();
    [url, cli] = await Promise.all([node.start(), CliProcess.build('treasury-books-tron')]);
    node.setTrxBalance(HOT, 1_000n * TRX);
    node.setTrxBalance(PAYER, 1_000n * TRX);
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
    await parkEarlierPayouts(api.dataSource);
    worker = await startWorker();
    merchant = await api.createMerchant();
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '100',
    });
  }, 180_000);

  afterAll(async () => {
    cli?.remove();
    await worker?.close();
    await api?.close();
    await node?.stop();
    environment?.restore();
  });

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
    // The hot wallet has no USDT yet: fund it, as an operator would, and book the funding.
    const transport = new TronNodePayoutTransport({
      ...TESTNET_NETWORKS.TRON,
      rpcUrls: [url],
      confirmations: 1,
    });
    const funding = await transport.buildAndSign(
      new HotWalletKey('TRON', PAYER, PAYER_KEY),
      { tokenContract: USDT, to: HOT, amountBaseUnits: 500_000_000n },
      30_000_000n,
    );
    expect(await transport.broadcast(funding.rawTransaction)).toEqual({ kind: 'accepted' });
    node.mineBroadcasts();
    const booked = await cli.run(
      'treasury:book-funding',
      '--network',
      'TRON',
      '--tx',
      funding.txHash,
    );
    expect({ code: booked.code, stderr: booked.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(booked.stdout)).toMatchObject({
      network: 'TRON',
      tx_hash: funding.txHash,
      entries: [
        {
          reference: `funding:TRON:${funding.txHash}:0`,
          account: 'hot_wallet:TRON:USDT',
          currency: 'USDT',
          amount: '500',
          booked: true,
        },
        {
          reference: `funding:TRON:${funding.txHash}:0`,
          account: 'owner_funding:TRON:USDT',
          amount: '-500',
        },
      ],
    });

    await waitFor(
      async () => (await api.get(`/v1/payouts/${body.id}`, merchant).expect(200)).body.tx_hash,
      30_000,
      'the payout signed',
    );
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
  }, 120_000);
  it('reads TRON balances for reconciliation: the hot wallet and every deposit address, at the head', async () => {
    // Other suites' TRON history shares this database, so only the chain's side is this suite's
    // own: what the node holds on the addresses we control.
    const rows = await worker.get(ReconciliationService).reconcile('TRON', 'full');
    const units = (base: bigint) => fromBaseUnits(base, 6).toFixed();
    expect(rows?.find((row) => row.currency === 'USDT')).toMatchObject({
      onchain: units(node.tokenBalance(USDT, HOT)),
      block: node.headBlockNumber,
    });
    const trx = rows?.find((row) => row.currency === 'TRX');
    expect(trx).toMatchObject({ onchain: units(node.trxBalance(HOT)!), pending: [] });
    // The hot wallet, and TRON wallets earlier suites registered in the shared database (a
    // staking account of the TRON sweeps suite): on this node they hold nothing.
    expect(trx?.addresses).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
