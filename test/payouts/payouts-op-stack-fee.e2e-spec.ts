import { randomUUID } from 'node:crypto';
import { parseUnits, Wallet } from 'ethers';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@app/metrics';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
// 0.01 ETH of L1 data fee per transaction, as an OP-stack node answers it.
const L1_FEE = 10n ** 16n;
// Generous: a slow shared CI machine (each refused receipt is asked 4 times, with backoff).
const WAIT_MS = 180_000;
// The looks after which a run stalled on a block gave it up (BlocksRead's STALLED_LOOKS).
const STALLED_LOOKS = 30;
const GAUGE = 'payments_chain_receipts_without_fee{network="ETHEREUM"}';

/*
 * Review r9b, M3: on an OP-stack network (`opStack`: Base, Optimism) a transaction's fee is its
 * execution (gasUsed x effectiveGasPrice) plus the L1 data fee the receipt carries as `l1Fee`.
 * A node that leaves it out tells no fee: the tracker must book nothing on that answer, never the
 * execution alone, and complete the payout once a node answers it whole. Follow-up (M2, H1): one
 * receipt without its fee holds only its own payout, not the blocks after it, and is counted by
 * payments_chain_receipts_without_fee. The devnet runs as ETHEREUM with opStack set; the proxy in
 * front gives receipts an l1Fee, or none.
 */
describe('Payout fees on an OP-stack network', () => {
  const chain = useChainSuite({
    proxy: true,
    confirmations: 2,
    networksFile: { opStack: true },
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      // Each payout has one transaction: nothing replaced while its receipt is refused.
      PAYOUT_REPLACE_AFTER_MS: '600000',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
    },
    newChain: 'payouts',
    worker: true,
    merchant: { usdt: '1000' },
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let proxy: RpcProxy;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, proxy, api, merchant } = chain));

  afterEach(async () => {
    proxy.rewrite(undefined);
    await devnet.provider.send('evm_setAutomine', [true]);
  });

  const status = async (id: string): Promise<string> =>
    (
      (await api.dataSource.query(`SELECT status FROM payouts WHERE id = $1`, [id])) as Array<{
        status: string;
      }>
    )[0]!.status;

  const fees = async (ids: string[]): Promise<Array<{ tx_hash: string; amount: string }>> =>
    api.dataSource.query(
      `SELECT p.tx_hash, l.amount FROM payouts p
         JOIN ledger_entries e ON e.reference = 'network_fee:ETHEREUM:' || p.tx_hash
         JOIN ledger_lines l ON l.entry_id = e.id AND l.amount > 0
        WHERE p.id = ANY($1)`,
      [ids],
    );

  const gauge = async (): Promise<string> => {
    const metrics = await chain.worker.get<Registry>(METRICS_REGISTRY).metrics();
    return metrics.split('\n').find((line) => line.startsWith(GAUGE)) ?? `${GAUGE} absent`;
  };

  /** A payout sent and in the pool (automine off), with the hash of its one transaction. */
  async function sentPayout(recipient: string): Promise<{ id: string; txHash: string }> {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    const id = body.id as string;
    await waitFor(
      async () =>
        (await api.count('payout_attempts', `payout_id = $1 AND status = 'Broadcast'`, [id])) === 1,
      WAIT_MS,
      'the payout broadcast',
    );
    const [{ tx_hash: txHash }] = (await api.dataSource.query(
      `SELECT tx_hash FROM payout_attempts WHERE payout_id = $1`,
      [id],
    )) as Array<{ tx_hash: string }>;
    return { id, txHash: txHash.toLowerCase() };
  }

  it('completes payouts of later blocks while one receipt lacks l1Fee, and that one once a node answers it', async () => {
    // Receipts of these transactions are answered with an l1Fee; every other one without.
    const whole = new Set<string>();
    const answered = { eth_getTransactionReceipt: 0 };
    proxy.rewrite((request, answer) => {
      if (
        request.method !== 'eth_getTransactionReceipt' &&
        request.method !== 'eth_getBlockReceipts'
      ) {
        return undefined;
      }
      const parsed = JSON.parse(answer) as { result: unknown };
      if (!parsed.result) return undefined;
      if (request.method === 'eth_getTransactionReceipt') answered.eth_getTransactionReceipt += 1;
      const rewritten = (receipt: Record<string, unknown>) => {
        const rest = { ...receipt };
        delete rest.l1Fee;
        const hash = String(receipt.transactionHash).toLowerCase();
        return whole.has(hash) ? { ...rest, l1Fee: `0x${L1_FEE.toString(16)}` } : rest;
      };
      const result = Array.isArray(parsed.result)
        ? parsed.result.map(rewritten)
        : rewritten(parsed.result as Record<string, unknown>);
      return JSON.stringify({ ...parsed, result });
    });

    await devnet.provider.send('evm_setAutomine', [false]);
    const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
    // A, alone in its block: no node answers its l1Fee.
    const held = await sentPayout(recipients[0]!);
    await devnet.provider.send('evm_mine', []);
    // B, in the next block: answered whole.
    const later = await sentPayout(recipients[1]!);
    whole.add(later.txHash);
    const ticks = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
    const minedAt = ticks();
    await devnet.provider.send('evm_mine', []);
    await devnet.provider.send('anvil_mine', ['0x4']);

    // B is decided from the blocks read, past A's block: no run stalled on it for 30 looks
    // (before, B waited for them, then for the run to start again at the head).
    await waitFor(async () => (await status(later.id)) === 'Completed', WAIT_MS, 'B Completed');
    expect(ticks() - minedAt).toBeLessThan(STALLED_LOOKS);
    // A stays Processing, nothing booked on a receipt without its fee, and it is counted.
    await waitFor(async () => (await gauge()) === `${GAUGE} 1`, WAIT_MS, 'A counted');
    expect(await status(held.id)).toBe('Processing');
    expect(answered.eth_getTransactionReceipt).toBeGreaterThan(0);
    expect((await fees([held.id, later.id])).map((fee) => fee.tx_hash)).toEqual([later.txHash]);

    // A node that answers A's L1 data fee: A completes, once, its fee booked whole.
    whole.add(held.txHash);
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await status(held.id)) === 'Completed';
      },
      WAIT_MS,
      'A Completed',
    );
    expect(await gauge()).toBe(`${GAUGE} absent`);
    const booked = await fees([held.id, later.id]);
    expect(booked).toHaveLength(2);
    for (const { tx_hash: txHash, amount } of booked) {
      const receipt = await devnet.provider.getTransactionReceipt(txHash);
      expect(parseUnits(amount, 18)).toBe(receipt!.gasUsed * receipt!.gasPrice + L1_FEE);
    }
    // Each paid once, by its one transaction.
    const sent = await transfersFrom(devnet, 'USDT', HOT_WALLET);
    for (const recipient of recipients) {
      expect(sent.filter((transfer) => transfer.to === recipient)).toHaveLength(1);
    }
    expect(await api.count('payout_attempts', `payout_id = ANY($1)`, [[held.id, later.id]])).toBe(
      2,
    );
  }, 600_000);
});
