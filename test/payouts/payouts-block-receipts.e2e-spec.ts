import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { parseUnits, toQuantity, Transaction, Wallet } from 'ethers';
import { useChainEnvironment } from '../support/chain-test-env';
import { Devnet, DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { LaggingBalancer } from '../support/lagging-balancer';
import { creditedMerchant } from '../support/ledger-credit';
import {
  startPayoutsOnNewChain,
  transfersFrom,
  writeHotWalletsFile,
} from '../support/payout-chain';
import { RpcProxy, rpcErrorReply, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const CONFIRMATIONS = 3;
const PAYOUTS = 12;
// 10 USDT less the 0.5 fee, in the devnet token's 6 decimals.
const NET_AMOUNT = parseUnits('9.5', 6);

interface RawBlock {
  hash: string;
  transactions: string[];
}

/*
 * The tracker reads receipts per block, not per payout (issue 27): each new block by number, and
 * the receipts of the service's transactions in it, one eth_getBlockReceipts for the block. The
 * RPC is a load balancer over the node and a backend `lagBlocks` behind it (DESIGN.md section 4),
 * with a proxy in front that counts and alters calls.
 */
describe('Payout receipts read per block', () => {
  let devnet: Devnet;
  let balancer: LaggingBalancer;
  let proxy: RpcProxy;
  let api: TestApi;
  let worker: INestApplicationContext;
  let environment: ReturnType<typeof useChainEnvironment>;
  let merchant: TestMerchant;

  beforeAll(async () => {
    devnet = await startDevnet();
    balancer = await LaggingBalancer.start(devnet.rpcUrl, {
      lagBlocks: 4,
      mode: 'fresh',
      seed: 27,
    });
    proxy = await RpcProxy.start(balancer.url);
    environment = useChainEnvironment(
      devnet.networksFileJson({ rpcUrls: [proxy.url], confirmations: CONFIRMATIONS }),
      {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        // Every payout here has one transaction: a replacement would blur what is counted.
        PAYOUT_REPLACE_AFTER_MS: '600000',
        PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      },
    );
    api = await TestApi.start();
    await startPayoutsOnNewChain(api, 'ETHEREUM');
    worker = await startWorker();
    merchant = await creditedMerchant(api, {
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: '1000',
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await proxy?.stop();
    await balancer?.stop();
    await devnet?.stop();
    environment?.restore();
  });

  afterEach(async () => {
    proxy.intercept(undefined);
    proxy.rewrite(undefined);
    balancer.mode = 'fresh';
    balancer.lagBlocks = 4;
    await devnet.provider.send('evm_setAutomine', [true]);
  });

  /** Payouts of 10 USDT to fresh recipients, each broadcast and waiting in the node's pool. */
  async function broadcastPayouts(): Promise<Array<{ id: string; recipient: string }>> {
    const payouts: Array<{ id: string; recipient: string }> = [];
    for (let index = 0; index < PAYOUTS; index++) {
      const recipient = Wallet.createRandom().address;
      const { body } = await api
        .post(
          '/v1/payouts',
          merchant,
          { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201);
      payouts.push({ id: (body as { id: string }).id, recipient });
    }
    const ids = payouts.map((payout) => payout.id);
    await waitFor(
      async () =>
        (await api.count('payout_attempts', `payout_id = ANY($1) AND status = 'Broadcast'`, [
          ids,
        ])) === PAYOUTS,
      60_000,
      'every payout broadcast',
    );
    return payouts;
  }

  /** Mines the pool into one block, which must hold every payout's transaction. */
  async function mineTheirBlock(): Promise<RawBlock> {
    await devnet.provider.send('evm_mine', []);
    const block = (await devnet.provider.send('eth_getBlockByNumber', [
      'latest',
      false,
    ])) as RawBlock;
    expect(block.transactions).toHaveLength(PAYOUTS);
    return block;
  }

  const statuses = async (ids: string[]): Promise<string[]> =>
    (
      (await api.dataSource.query(`SELECT status FROM payouts WHERE id = ANY($1)`, [
        ids,
      ])) as Array<{
        status: string;
      }>
    ).map((row) => row.status);

  const waitForCompleted = (ids: string[]) =>
    waitFor(
      async () => (await statuses(ids)).every((status) => status === 'Completed'),
      90_000,
      'every payout Completed',
    );

  const callsOf = (from: number, method: string) =>
    proxy.methods.slice(from).filter((called) => called === method).length;

  /** Each payout paid once, as the chain says: its transfer, its hash, its fee as the receipt says. */
  async function expectPaidOnce(
    payouts: Array<{ id: string; recipient: string }>,
    block: RawBlock,
  ): Promise<void> {
    const ids = payouts.map((payout) => payout.id);
    const onChain = await transfersFrom(devnet, 'USDT', HOT_WALLET);
    const rows: Array<{ id: string; tx_hash: string; attempts: number }> =
      await api.dataSource.query(
        `SELECT p.id, p.tx_hash,
                (SELECT count(*)::int FROM payout_attempts a WHERE a.payout_id = p.id) AS attempts
           FROM payouts p WHERE p.id = ANY($1)`,
        [ids],
      );
    for (const { id, recipient } of payouts) {
      const row = rows.find((candidate) => candidate.id === id)!;
      const transfers = onChain.filter((transfer) => transfer.to === recipient);
      expect(transfers).toEqual([{ to: recipient, amount: NET_AMOUNT, txHash: row.tx_hash }]);
      expect(block.transactions.map((hash) => hash.toLowerCase())).toContain(row.tx_hash);
      // Nothing replaced or signed anew.
      expect(row.attempts).toBe(1);
      const receipt = await devnet.provider.getTransactionReceipt(row.tx_hash);
      const [fee]: Array<{ amount: string }> = await api.dataSource.query(
        `SELECT l.amount FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
          WHERE e.reference = $1 AND l.amount > 0`,
        [`network_fee:ETHEREUM:${row.tx_hash}`],
      );
      expect(parseUnits(fee.amount, 18)).toBe(receipt!.gasUsed * receipt!.gasPrice);
    }
  }

  it('completes payouts mined in one block with one read of its receipts', async () => {
    // Single receipts answer nothing (a backend without the block): the block read is the only
    // way to completion. Before issue 27 the tracker read a receipt per payout and never got here.
    proxy.intercept((request) =>
      request.method === 'eth_getTransactionReceipt' ? rpcResultReply(request, null) : undefined,
    );
    await devnet.provider.send('evm_setAutomine', [false]);
    const payouts = await broadcastPayouts();
    const from = proxy.methods.length;
    const block = await mineTheirBlock();
    await devnet.provider.send('anvil_mine', [toQuantity(CONFIRMATIONS - 1)]);

    await waitForCompleted(payouts.map((payout) => payout.id));
    expect(callsOf(from, 'eth_getBlockReceipts')).toBe(1);
    // The head once a tick, not once a payout.
    expect(callsOf(from, 'eth_blockNumber')).toBeLessThan(PAYOUTS);
    await expectPaidOnce(payouts, block);
  });

  it('decides nothing on a lagging backend’s word, and completes each payout once', async () => {
    // Half the answers, at random, from a backend four blocks behind the node.
    balancer.mode = 'random';
    const sent: string[] = [];
    proxy.intercept((request) => {
      if (request.method === 'eth_sendRawTransaction') {
        sent.push(Transaction.from(String((request.params as unknown[])[0])).hash!);
      }
      return undefined;
    });
    // The blocks whose receipts an answer gave (the tracker holds them from that tick on).
    const receiptsRead = new Set<string>();
    proxy.rewrite((request, answer) => {
      const [blockHash] = (request.params ?? []) as string[];
      if (request.method === 'eth_getBlockReceipts' && JSON.parse(answer).result) {
        receiptsRead.add(blockHash.toLowerCase());
      }
      return undefined;
    });
    await devnet.provider.send('evm_setAutomine', [false]);
    const payouts = await broadcastPayouts();
    const ids = payouts.map((payout) => payout.id);
    const block = await mineTheirBlock();
    // Two confirmations of the three needed.
    await devnet.provider.send('evm_mine', []);
    await waitFor(
      async () => receiptsRead.has(block.hash.toLowerCase()),
      90_000,
      "the tracker reading the block's receipts",
    );
    const sentOnceRead = sent.length;
    const counts = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
    const seen = counts();
    await waitFor(async () => counts() >= seen + 15, 60_000, '15 more tracker ticks');
    expect(await statuses(ids)).toEqual(Array(PAYOUTS).fill('Processing'));

    await devnet.provider.send('evm_mine', []);
    await waitForCompleted(ids);
    // Once read in a block, no transaction was sent again, whatever the lagging answers said.
    expect(sent.slice(sentOnceRead)).toEqual([]);
    expect(balancer.answered.lagging).toBeGreaterThan(0);
    await expectPaidOnce(payouts, block);
  });

  it('keeps its blocks behind a backend 20 blocks behind, and completes each payout once from them', async () => {
    // Review r8, F1: a head of the lagging backend lies below the blocks the run holds (16 read
    // below the head at the worker's start, a few since); one such head used to wipe the run.
    // The lagging backend's state must hold the token and the wallet's funds (its gas estimates
    // against a block before the token's deployment would be too low, and the transfers revert).
    await devnet.provider.send('anvil_mine', [toQuantity(25)]);
    balancer.lagBlocks = 20;
    balancer.mode = 'random';
    await devnet.provider.send('evm_setAutomine', [false]);
    const payouts = await broadcastPayouts();
    const ids = payouts.map((payout) => payout.id);
    const block = await mineTheirBlock();
    const from = proxy.methods.length;
    await devnet.provider.send('anvil_mine', [toQuantity(CONFIRMATIONS - 1)]);
    await waitForCompleted(ids);
    expect(balancer.answered.lagging).toBeGreaterThan(0);
    // The block's receipts were read. A payout may still be looked up alone while the run
    // catches up on a loaded machine (CI saw 2 lookups); such a receipt decides only once the run
    // proves its block, so the count is no property of the fix: blocks-read.spec.ts proves the
    // run is kept under a head 20 blocks low, and here each payout is paid exactly once.
    expect(callsOf(from, 'eth_getBlockReceipts')).toBeGreaterThanOrEqual(1);
    await expectPaidOnce(payouts, block);
  });

  it('reads the receipts one by one, each against the block, where the node lacks eth_getBlockReceipts', async () => {
    proxy.intercept((request) =>
      request.method === 'eth_getBlockReceipts'
        ? rpcErrorReply(request, -32601, 'Method not found')
        : undefined,
    );
    await devnet.provider.send('evm_setAutomine', [false]);
    const payouts = await broadcastPayouts();
    const from = proxy.methods.length;
    const block = await mineTheirBlock();
    await devnet.provider.send('anvil_mine', [toQuantity(CONFIRMATIONS - 1)]);
    await waitForCompleted(payouts.map((payout) => payout.id));
    // Asked once, then not again for a while; each payout's receipt read on its own.
    expect(callsOf(from, 'eth_getBlockReceipts')).toBe(1);
    expect(callsOf(from, 'eth_getTransactionReceipt')).toBeGreaterThanOrEqual(PAYOUTS);
    await expectPaidOnce(payouts, block);
  });
});
