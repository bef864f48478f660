import { Logger } from '@nestjs/common';
import { Wallet } from 'ethers';
import { ChainFamily, NetworkName, NetworkRegistry, receiptFeeWei } from '@app/chains';
import { LedgerService } from '@app/ledger';
import { NetworkFeeFinality, OVERDUE_CHECKS } from '@app/treasury';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { RpcProxy } from '../support/rpc-proxy';
import { TestApi } from '../support/test-app';

const FINALITY_BLOCKS = 4;

/*
 * Review r9b follow-up, L3: on an OP-stack network, a fee whose receipt is final but answered
 * without l1Fee by every URL ended overdue with the error of a transaction "dropped for good":
 * an operator looked for a reorg, not for a node that strips a field.
 */
describe('Network fees become final on an OP-stack network whose node strips l1Fee', () => {
  const chain = useChainSuite({
    networksFile: { finalityBlocks: FINALITY_BLOCKS },
    // The worker's own fee pass once a day: this suite runs its own pass.
    environment: { WATCH_NETWORKS: 'none', TREASURY_RECONCILE_INTERVAL_MS: '86400000' },
    newChain: 'forget',
    worker: true,
    merchant: false,
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let api: TestApi;
  let stripping: RpcProxy;
  beforeAll(async () => {
    ({ devnet, api } = chain);
    stripping = await RpcProxy.start(devnet.rpcUrl);
    stripping.rewrite((request, answer) => {
      if (request.method !== 'eth_getTransactionReceipt') return undefined;
      const parsed = JSON.parse(answer) as { result: Record<string, unknown> | null };
      if (!parsed.result) return undefined;
      const result = { ...parsed.result };
      delete result.l1Fee;
      return JSON.stringify({ ...parsed, result });
    });
  });
  afterAll(async () => {
    await stripping?.stop();
  });

  it('alerts on an overdue fee as a receipt no URL answers the fee of, not as a drop', async () => {
    const { txHash } = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    await devnet.mine(FINALITY_BLOCKS + 1);
    const receipt = await devnet.provider.send('eth_getTransactionReceipt', [txHash]);
    const fee = receiptFeeWei(receipt, { opStack: false })!;
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, checks, succeeded)
       VALUES ('ETHEREUM', $1, $2, $3, true)`,
      [txHash, fee.toString(), OVERDUE_CHECKS - 1],
    );
    // The devnet as an OP-stack network, reached through the node that strips l1Fee.
    const registry = chain.worker.get(NetworkRegistry, { strict: false });
    const opStack = {
      get: (name: NetworkName) => ({
        ...registry.get(name),
        rpcUrls: [stripping.url],
        opStack: true,
      }),
      networksOfFamily: (family: ChainFamily) => registry.networksOfFamily(family),
    } as unknown as NetworkRegistry;
    const finality = new NetworkFeeFinality(
      api.dataSource,
      chain.worker.get(LedgerService, { strict: false }),
      opStack,
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await finality.finalize('ETHEREUM');
      const about = errors.mock.calls.filter(
        ([fields]) => (fields as { txHash?: string })?.txHash === txHash,
      );
      expect(about.map(([, message]) => message)).toEqual([
        expect.stringMatching(/receipt is final, but no RPC URL answers its fee/),
      ]);
      const [row] = await api.dataSource.query(
        `SELECT final_at IS NULL AS open FROM network_fee_receipts WHERE tx_hash = $1`,
        [txHash],
      );
      expect(row.open).toBe(true);
    } finally {
      errors.mockRestore();
      await finality.onModuleDestroy();
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = $1`, [txHash]);
    }
  }, 180_000);
});
