import { randomUUID } from 'node:crypto';
import { parseUnits, Wallet } from 'ethers';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy, RpcRewriter } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// 0.01 ETH of L1 data fee per transaction, as an OP-stack node answers it.
const L1_FEE = 10n ** 16n;
const WAIT_MS = 180_000;

/** Receipts (alone or of a block) with `l1Fee` set to `l1Fee`, or without it (null). */
function receiptsWith(l1Fee: string | null): RpcRewriter {
  return (request, answer) => {
    if (
      request.method !== 'eth_getTransactionReceipt' &&
      request.method !== 'eth_getBlockReceipts'
    ) {
      return undefined;
    }
    const parsed = JSON.parse(answer) as { result: unknown };
    if (!parsed.result) return undefined;
    const rewritten = (receipt: Record<string, unknown>) => {
      const rest = { ...receipt };
      delete rest.l1Fee;
      return l1Fee === null ? rest : { ...rest, l1Fee };
    };
    const result = Array.isArray(parsed.result)
      ? parsed.result.map(rewritten)
      : rewritten(parsed.result as Record<string, unknown>);
    return JSON.stringify({ ...parsed, result });
  };
}

/*
 * Review r9b follow-up, M1: a receipt without l1Fee was a permanent error, so the next RPC URL
 * was never asked (and EvmRpc prefers another URL only after one answers): with a first URL whose
 * node strips l1Fee, the payout stayed Processing although the second answers it whole.
 */
describe('Payout fees on an OP-stack network with two RPC URLs, the first stripping l1Fee', () => {
  let stripping: RpcProxy | undefined;
  const chain = useChainSuite({
    proxy: true,
    confirmations: 2,
    networksFile: {
      opStack: true,
      // Read once the proxies run (the environment below starts the first).
      get rpcUrls() {
        return [stripping!.url, chain.proxy.url];
      },
    },
    environment: async ({ devnet }) => {
      stripping = await RpcProxy.start(devnet.rpcUrl);
      return {
        WATCH_NETWORKS: 'none',
        HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
        PAYOUT_TRACK_INTERVAL_MS: '200',
        PAYOUT_RETRY_DELAY_MS: '300',
        PAYOUT_REPLACE_AFTER_MS: '600000',
        PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
      };
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
  afterAll(async () => {
    await stripping?.stop();
  });

  it('asks the second URL and books the fee with its L1 data fee', async () => {
    stripping!.rewrite(receiptsWith(null));
    proxy.rewrite(receiptsWith(`0x${L1_FEE.toString(16)}`));
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        {
          amount: '10',
          currency: 'USDT',
          network: 'ETHEREUM',
          to_address: Wallet.createRandom().address,
        },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    const id = body.id as string;
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        const [row] = (await api.dataSource.query(`SELECT status FROM payouts WHERE id = $1`, [
          id,
        ])) as Array<{ status: string }>;
        return row?.status === 'Completed';
      },
      WAIT_MS,
      'the payout Completed',
    );
    expect(stripping!.methods).toContain('eth_getTransactionReceipt');
    const [{ tx_hash: txHash, amount }] = (await api.dataSource.query(
      `SELECT p.tx_hash, l.amount FROM payouts p
         JOIN ledger_entries e ON e.reference = 'network_fee:ETHEREUM:' || p.tx_hash
         JOIN ledger_lines l ON l.entry_id = e.id AND l.amount > 0
        WHERE p.id = $1`,
      [id],
    )) as Array<{ tx_hash: string; amount: string }>;
    const receipt = await devnet.provider.getTransactionReceipt(txHash);
    expect(parseUnits(amount, 18)).toBe(receipt!.gasUsed * receipt!.gasPrice + L1_FEE);
  }, 300_000);
});
