import { randomUUID } from 'node:crypto';
import { Transaction, Wallet } from 'ethers';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { RpcProxy, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
// The block a backend stuck on a lost fork names: never on the chain.
const ORPHAN = `0x${'0b'.repeat(32)}`;

/*
 * Review r8, F2: a receipt looked up one by one comes from one backend of the balancer and the
 * head from another. A backend that imported the payout's transaction in a block that lost a fork
 * (and reverted there: another state on that branch) answers its receipt naming that block. The
 * tracker must count it only where its block is the chain it reads, never against another
 * backend's head: Failed on it would release funds the chain may still pay.
 */
describe('Payout receipts of a block that lost a fork', () => {
  const chain = useChainSuite({
    proxy: true,
    confirmations: 2,
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      // The wait for the blocks still to read ends soon: the receipt is then looked up alone.
      PAYOUT_REPLACE_AFTER_MS: '1500',
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

  afterEach(() => {
    proxy.rewrite(undefined);
    proxy.intercept(undefined);
  });

  const statusOf = async (id: string): Promise<string> =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body.status;

  it('neither fails nor completes a payout on a receipt of an orphaned block, and pays once', async () => {
    // Every receipt, single or of a block, as the stuck backend answers it: the orphan's, reverted.
    const orphaned: string[] = [];
    proxy.rewrite((request, answer) => {
      if (
        request.method !== 'eth_getTransactionReceipt' &&
        request.method !== 'eth_getBlockReceipts'
      ) {
        return undefined;
      }
      const parsed = JSON.parse(answer) as { result: unknown };
      if (!parsed.result) return undefined;
      const onOrphan = (receipt: Record<string, unknown>) => {
        orphaned.push(String(receipt.transactionHash));
        return { ...receipt, blockHash: ORPHAN, status: '0x0' };
      };
      const result = Array.isArray(parsed.result)
        ? parsed.result.map(onOrphan)
        : onOrphan(parsed.result as Record<string, unknown>);
      return JSON.stringify({ ...parsed, result });
    });
    const recipient = Wallet.createRandom().address;
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    const id = body.id as string;
    const sentTo = async () =>
      (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient);
    await waitFor(async () => (await sentTo()).length === 1, 30_000, 'the transfer mined');
    // Far past the confirmations, on the chain.
    await devnet.provider.send('anvil_mine', ['0x6']);

    // Lookups answered from the orphan (past the replacement wait, and past the 30 looks after
    // which the run gives the block up and starts again at the head).
    const counted = () => proxy.methods.filter((m) => m === 'eth_getTransactionCount').length;
    const before = counted();
    // (A tracker with nothing in flight reads no count: a payout ended early ends the wait.)
    await waitFor(
      async () => counted() >= before + 45 || (await statusOf(id)) !== 'Processing',
      60_000,
      '45 tracker ticks',
    );
    expect(orphaned.length).toBeGreaterThan(0);
    expect(await statusOf(id)).toBe('Processing');

    // The backend catches up with the chain: the receipt names the chain's block.
    proxy.rewrite(undefined);
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await statusOf(id)) === 'Completed';
      },
      60_000,
      `${id} Completed`,
    );
    const [transfer] = await sentTo();
    expect(await sentTo()).toHaveLength(1);
    const [row]: Array<{ tx_hash: string; attempts: number }> = await api.dataSource.query(
      `SELECT p.tx_hash,
              (SELECT count(*)::int FROM payout_attempts a WHERE a.payout_id = p.id) AS attempts
         FROM payouts p WHERE p.id = $1`,
      [id],
    );
    expect(row).toEqual({ tx_hash: transfer.txHash, attempts: 1 });
  });

  it('signs no new nonce on a proof read from a block that lost a fork', async () => {
    // The payout's transaction never reaches the node (the proxy says it took it); a transaction
    // sent from the hot wallet outside the service takes its nonce. The block bodies the nonce
    // search reads name that block by the orphan's hash, as the stuck backend does.
    const swallowed = new Set<string>();
    proxy.intercept((request) => {
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      const hash = Transaction.from(String(request.params?.[0])).hash as string;
      if (swallowed.size === 0) swallowed.add(hash);
      return swallowed.has(hash) ? rpcResultReply(request, hash) : undefined;
    });
    let orphanBodies = 0;
    proxy.rewrite((request, answer) => {
      if (request.method !== 'eth_getBlockByNumber' || request.params?.[1] !== true) {
        return undefined;
      }
      const parsed = JSON.parse(answer) as { result: Record<string, unknown> | null };
      if (!parsed.result) return undefined;
      orphanBodies += 1;
      return JSON.stringify({ ...parsed, result: { ...parsed.result, hash: ORPHAN } });
    });
    const recipient = Wallet.createRandom().address;
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: recipient },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    const id = body.id as string;
    await waitFor(async () => swallowed.size === 1, 30_000, 'the first broadcast');
    const attemptsOf = async () =>
      (
        (await api.dataSource.query(
          `SELECT status, nonce FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
          [id],
        )) as Array<{ status: string; nonce: string }>
      ).map((attempt) => attempt.status);
    const [{ nonce }]: Array<{ nonce: string }> = await api.dataSource.query(
      `SELECT nonce FROM payout_attempts WHERE payout_id = $1`,
      [id],
    );
    const outsider = new Wallet(DEVNET_ACCOUNTS.hotWallet.privateKey, devnet.provider);
    await (
      await outsider.sendTransaction({ to: HOT_WALLET, value: 0n, nonce: Number(nonce) })
    ).wait();
    await devnet.provider.send('anvil_mine', ['0x4']);

    // Each tick past the confirmations makes the proof again from the bodies (the stored one's
    // block has another hash at its height): ten of them.
    const before = orphanBodies;
    await waitFor(
      async () => orphanBodies >= before + 10 || (await attemptsOf()).length > 1,
      60_000,
      'ten ticks proving the nonce used from the orphan',
    );
    expect(orphanBodies).toBeGreaterThan(0);
    expect(await attemptsOf()).toEqual(['Broadcast']);

    // The block bodies name the chain's block again: the proof holds, a new nonce pays once.
    proxy.rewrite(undefined);
    await waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        return (await statusOf(id)) === 'Completed';
      },
      60_000,
      `${id} Completed`,
    );
    expect(await attemptsOf()).toEqual(['Superseded', 'Broadcast']);
    expect(
      (await transfersFrom(devnet, 'USDT', HOT_WALLET)).filter((t) => t.to === recipient),
    ).toHaveLength(1);
  });
});
