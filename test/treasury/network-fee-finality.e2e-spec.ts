import { randomBytes, randomUUID } from 'node:crypto';
import { toQuantity, Wallet } from 'ethers';
import { receiptFeeWei } from '@app/chains';
import { LedgerAccounts } from '@app/ledger';
import { NetworkFeeFinality } from '@app/treasury';
import { useChainSuite } from '../support/chain-suite';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { writeHotWalletsFile } from '../support/payout-chain';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet.address;
const FINALITY_BLOCKS = 8;
const HOT_WALLET_ETH = LedgerAccounts.hotWallet('ETHEREUM', 'ETH');

interface RawReceipt {
  blockNumber: string;
  blockHash: string;
  gasUsed: string;
  effectiveGasPrice: string;
}

/*
 * Fees become final (docs/treasury.md): the chaos soak's run G found fees booked from the receipt
 * of a transaction a reorg then dropped and the chain mined again, same signed bytes, in a later
 * block at another base fee. Here on a real anvil chain with the real worker: a payout completes
 * at confirmations 1, the chain is reorged under it and the same transaction mined again cheaper;
 * the pass that makes fees final corrects the booked fee exactly to the new receipt's, once.
 */
describe('Network fees become final', () => {
  const chain = useChainSuite({
    networksFile: { finalityBlocks: FINALITY_BLOCKS },
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: writeHotWalletsFile({ ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey }),
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
    },
    newChain: 'payouts',
    worker: true,
    merchant: { usdt: '1000' },
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let finality: NetworkFeeFinality;
  beforeAll(() => {
    ({ devnet, api, merchant } = chain);
    finality = chain.worker.get(NetworkFeeFinality, { strict: false });
  });

  /** What the books hold on an account, in base units of an 18-decimal coin. */
  async function booked(account: string): Promise<bigint> {
    const [row]: Array<{ wei: string }> = await api.dataSource.query(
      `SELECT (COALESCE(sum(amount), 0) * 1e18)::numeric(78, 0)::text AS wei
         FROM ledger_lines WHERE account = $1`,
      [account],
    );
    return BigInt(row.wei);
  }

  async function feeRow(txHash: string) {
    const [row]: Array<{
      fee: string;
      block_number: string | null;
      block_hash: string | null;
      final: boolean;
    }> = await api.dataSource.query(
      `SELECT fee_base_units::text AS fee, block_number::text AS block_number, block_hash,
              final_at IS NOT NULL AS final
         FROM network_fee_receipts WHERE network = 'ETHEREUM' AND tx_hash = $1`,
      [txHash],
    );
    return row;
  }

  const adjustments = (txHash: string) =>
    api.count('ledger_entries', 'reference = $1', [`network_fee_adjustment:ETHEREUM:${txHash}`]);

  it('corrects the fee of a payout mined again in a later block at a lower base fee, once', async () => {
    const provider = devnet.provider;
    const beforePayout = await devnet.snapshot();
    const chainBefore = await provider.getBalance(HOT_WALLET);
    const booksBefore = await booked(HOT_WALLET_ETH);

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
    const payoutId = body.id as string;
    await waitFor(
      async () =>
        (await api.get(`/v1/payouts/${payoutId}`, merchant).expect(200)).body.status ===
        'Completed',
      30_000,
      `${payoutId} Completed`,
    );
    const [{ tx_hash: txHash }]: Array<{ tx_hash: string }> = await api.dataSource.query(
      `SELECT tx_hash FROM payouts WHERE id = $1`,
      [payoutId],
    );
    const first = (await provider.send('eth_getTransactionReceipt', [txHash])) as RawReceipt;
    const firstFee = receiptFeeWei(first, { opStack: false })!;
    // Booked with the fee, in the completion's transaction (the payout path knows no block).
    expect(await feeRow(txHash)).toEqual({
      fee: firstFee.toString(),
      block_number: null,
      block_hash: null,
      final: false,
    });

    // The reorg: the block is dropped, the chain grows two empty blocks, and the same signed
    // bytes are mined again in a later block whose base fee is half the first one's.
    const signed = (await provider.send('eth_getRawTransactionByHash', [txHash])) as string;
    const { baseFeePerGas } = (await provider.send('eth_getBlockByNumber', [
      first.blockNumber,
      false,
    ])) as { baseFeePerGas: string };
    await devnet.revert(beforePayout);
    await devnet.mine(2);
    await provider.send('anvil_setNextBlockBaseFeePerGas', [
      toQuantity(BigInt(baseFeePerGas) / 2n),
    ]);
    await provider.send('eth_sendRawTransaction', [signed]);
    await waitFor(
      async () => (await provider.send('eth_getTransactionReceipt', [txHash])) !== null,
      10_000,
      'the transaction mined again',
    );
    const second = (await provider.send('eth_getTransactionReceipt', [txHash])) as RawReceipt;
    const secondFee = receiptFeeWei(second, { opStack: false })!;
    expect(Number(second.blockNumber)).toBeGreaterThan(Number(first.blockNumber));
    expect(second.blockHash).not.toBe(first.blockHash);
    expect(secondFee).toBeLessThan(firstFee);

    // The bug: the books paid the first receipt's fee, the chain the second's.
    const chainPaid = () => provider.getBalance(HOT_WALLET).then((now) => chainBefore - now);
    const booksPaid = () => booked(HOT_WALLET_ETH).then((now) => booksBefore - now);
    expect(await chainPaid()).toBe(secondFee);
    expect(await booksPaid()).toBe(firstFee);

    // One block deep, not FINALITY_BLOCKS: nothing is decided.
    const shallow = await finality.finalize('ETHEREUM');
    expect(shallow.adjusted).toBe(0);
    expect((await feeRow(txHash)).final).toBe(false);
    expect(await adjustments(txHash)).toBe(0);

    await devnet.mine(FINALITY_BLOCKS);
    const report = await finality.finalize('ETHEREUM');
    expect(report).toMatchObject({ adjusted: 1, operator: 0 });
    expect(await feeRow(txHash)).toEqual({
      fee: secondFee.toString(),
      block_number: String(Number(second.blockNumber)),
      block_hash: second.blockHash.toLowerCase(),
      final: true,
    });
    expect(await booksPaid()).toBe(secondFee);
    expect(await booksPaid()).toBe(await chainPaid());
    const lines: Array<{ account: string; wei: string }> = await api.dataSource.query(
      `SELECT l.account, (l.amount * 1e18)::numeric(78, 0)::text AS wei
         FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
        WHERE e.reference = $1 ORDER BY l.account`,
      [`network_fee_adjustment:ETHEREUM:${txHash}`],
    );
    const back = firstFee - secondFee;
    expect(lines).toEqual([
      { account: HOT_WALLET_ETH, wei: back.toString() },
      { account: 'network_fees:ETHEREUM:ETH', wei: (-back).toString() },
    ]);

    // Again: the fee is final, nothing more is posted.
    const again = await finality.finalize('ETHEREUM');
    expect(again.adjusted).toBe(0);
    expect(await adjustments(txHash)).toBe(1);
    expect(await booksPaid()).toBe(await chainPaid());
  });

  it('decides nothing on a missing receipt, however deep the chain', async () => {
    const txHash = `0x${randomBytes(32).toString('hex')}`;
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units) VALUES ('ETHEREUM', $1, 21000)`,
      [txHash],
    );
    try {
      await devnet.mine(FINALITY_BLOCKS);
      const report = await finality.finalize('ETHEREUM');
      expect(report.waiting).toBeGreaterThanOrEqual(1);
      expect(await feeRow(txHash)).toMatchObject({ fee: '21000', final: false });
      expect(await adjustments(txHash)).toBe(0);
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = $1`, [txHash]);
    }
  });

  it('leaves a fee whose transaction changed status across a reorg to an operator', async () => {
    // A transaction that succeeded, booked as if the receipt first seen had reverted.
    const { txHash } = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    await api.dataSource.query(
      `INSERT INTO network_fee_receipts (network, tx_hash, fee_base_units, succeeded)
       VALUES ('ETHEREUM', $1, 1, false)`,
      [txHash],
    );
    try {
      await devnet.mine(FINALITY_BLOCKS);
      const report = await finality.finalize('ETHEREUM');
      expect(report.operator).toBeGreaterThanOrEqual(1);
      expect(await feeRow(txHash)).toMatchObject({ fee: '1', final: false });
      expect(await adjustments(txHash)).toBe(0);
    } finally {
      await api.dataSource.query(`DELETE FROM network_fee_receipts WHERE tx_hash = $1`, [txHash]);
    }
  });
});
