import { randomUUID } from 'node:crypto';
import { parseUnits, Wallet } from 'ethers';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const PAYOUTS = 2;
// 0.01 ETH of L1 data fee per transaction, as an OP-stack node answers it.
const L1_FEE = 10n ** 16n;

/*
 * Review r9b, M3: on an OP-stack network (`opStack`: Base, Optimism) a transaction's fee is its
 * execution (gasUsed x effectiveGasPrice) plus the L1 data fee the receipt carries as `l1Fee`.
 * A node that answers it null (or not at all) tells no fee: the tracker must book nothing on that
 * answer, never the execution alone, and complete the payout once a node answers it whole. The
 * devnet runs as ETHEREUM with opStack set; the proxy in front gives its receipts an l1Fee.
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

  const statuses = async (ids: string[]): Promise<string[]> =>
    (
      (await api.dataSource.query(`SELECT status FROM payouts WHERE id = ANY($1) ORDER BY id`, [
        ids,
      ])) as Array<{ status: string }>
    ).map((row) => row.status);

  it('books no fee from a receipt without l1Fee, and the L1 data fee once a node answers it', async () => {
    // Every receipt, of a block or alone, answered with this l1Fee (null: a node that drops it).
    let l1Fee: string | null = null;
    const answered = { eth_getBlockReceipts: 0, eth_getTransactionReceipt: 0 };
    proxy.rewrite((request, answer) => {
      if (
        request.method !== 'eth_getTransactionReceipt' &&
        request.method !== 'eth_getBlockReceipts'
      ) {
        return undefined;
      }
      const parsed = JSON.parse(answer) as { result: unknown };
      if (!parsed.result) return undefined;
      answered[request.method] += 1;
      const withFee = (receipt: Record<string, unknown>) => ({ ...receipt, l1Fee });
      const result = Array.isArray(parsed.result)
        ? parsed.result.map(withFee)
        : withFee(parsed.result as Record<string, unknown>);
      return JSON.stringify({ ...parsed, result });
    });

    // Both payouts in one block: its receipts are asked for whole, then one by one.
    await devnet.provider.send('evm_setAutomine', [false]);
    const recipients = Array.from({ length: PAYOUTS }, () => Wallet.createRandom().address);
    const ids: string[] = [];
    for (const recipient of recipients) {
      const { body } = await api
        .post(
          '/v1/payouts',
          merchant,
          { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
          { 'Idempotency-Key': randomUUID() },
        )
        .expect(201);
      ids.push(body.id as string);
    }
    await waitFor(
      async () =>
        (await api.count('payout_attempts', `payout_id = ANY($1) AND status = 'Broadcast'`, [
          ids,
        ])) === PAYOUTS,
      60_000,
      'every payout broadcast',
    );
    await devnet.provider.send('evm_mine', []);
    // Far past the confirmations.
    await devnet.provider.send('anvil_mine', ['0x4']);

    // Past the 30 looks after which the run gives the block up and looks the payouts up alone.
    const ticks = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
    const before = ticks();
    // (A payout ended early ends the wait: before the fix both completed on the first read.)
    await waitFor(
      async () =>
        ticks() >= before + 40 || (await statuses(ids)).some((status) => status !== 'Processing'),
      60_000,
      '40 tracker ticks',
    );
    expect(await statuses(ids)).toEqual(['Processing', 'Processing']);
    expect(answered.eth_getBlockReceipts).toBeGreaterThan(0);
    expect(answered.eth_getTransactionReceipt).toBeGreaterThan(0);
    const fees = async (): Promise<Array<{ tx_hash: string; amount: string }>> =>
      api.dataSource.query(
        `SELECT p.tx_hash, l.amount FROM payouts p
           JOIN ledger_entries e ON e.reference = 'network_fee:ETHEREUM:' || p.tx_hash
           JOIN ledger_lines l ON l.entry_id = e.id AND l.amount > 0
          WHERE p.id = ANY($1)`,
        [ids],
      );
    expect(await fees()).toEqual([]);

    // A node that answers the L1 data fee: each payout completes, its fee booked whole.
    l1Fee = `0x${L1_FEE.toString(16)}`;
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await statuses(ids)).every((status) => status === 'Completed');
      },
      60_000,
      'every payout Completed',
    );
    const booked = await fees();
    expect(booked).toHaveLength(PAYOUTS);
    for (const { tx_hash: txHash, amount } of booked) {
      const receipt = await devnet.provider.getTransactionReceipt(txHash);
      expect(parseUnits(amount, 18)).toBe(receipt!.gasUsed * receipt!.gasPrice + L1_FEE);
    }
    // Each paid once, by its one transaction.
    const sent = await transfersFrom(devnet, 'USDT', HOT_WALLET);
    for (const recipient of recipients) {
      expect(sent.filter((transfer) => transfer.to === recipient)).toHaveLength(1);
    }
    expect(await api.count('payout_attempts', `payout_id = ANY($1)`, [ids])).toBe(PAYOUTS);
  });
});
