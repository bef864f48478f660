import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { Wallet } from 'ethers';
import { receiptFeeWei } from '@app/chains';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import { NetworkFeeFinality } from '@app/treasury';
import { depositFeeEntry } from '@app/treasury/sweeps/deposit-fee-entry';
import { EvmTopUpJournalRepository } from '@app/treasury/sweeps/evm-top-up-journal.repository';
import { StrangerCoin } from '@app/treasury/sweeps/stranger-coin';
import { useChainSuite } from '../support/chain-suite';
import { Devnet } from '../support/devnet';
import { TestApi } from '../support/test-app';

const FINALITY_BLOCKS = 4;
const ETH = { symbol: 'ETH', decimals: 18 };

/*
 * Fees become final, review r9b's reproductions on a real anvil and the real worker: a deposit
 * fee's adjustment is counted with the address's own coin (H1).
 */
describe('Network fees become final: review r9b', () => {
  const chain = useChainSuite({
    networksFile: { finalityBlocks: FINALITY_BLOCKS },
    environment: { WATCH_NETWORKS: 'none' },
    newChain: 'forget',
    worker: true,
    merchant: false,
    timeoutMs: 120_000,
  });
  let devnet: Devnet;
  let api: TestApi;
  let finality: NetworkFeeFinality;
  let ledger: LedgerService;
  beforeAll(() => {
    ({ devnet, api } = chain);
    finality = chain.worker.get(NetworkFeeFinality, { strict: false });
    ledger = chain.worker.get(LedgerService, { strict: false });
  });

  /** A mined transaction FINALITY_BLOCKS deep, and its receipt's fee. */
  async function minedFee(): Promise<{ txHash: string; fee: bigint }> {
    const { txHash } = await devnet.transfer('USDT', Wallet.createRandom().address, '1');
    await devnet.mine(FINALITY_BLOCKS + 1);
    const receipt = await devnet.provider.send('eth_getTransactionReceipt', [txHash]);
    return { txHash, fee: receiptFeeWei(receipt)! };
  }

  const wei = (amount: bigint) => new Decimal(amount.toString()).div('1e18');

  it('counts a deposit fee adjustment with the address own coin: no stranger coin (H1)', async () => {
    const { txHash, fee } = await minedFee();
    const address = Wallet.createRandom().address;
    const topUpHash = `0x${randomBytes(32).toString('hex')}`;
    const sweepId = `sw_${randomBytes(6).toString('hex')}`;
    const topUp = fee + 1000n;
    await api.dataSource.query(
      `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                           destination_address, sweeper_address, nonce, status, kind, block_number)
       VALUES ($1, 'ETHEREUM', 'USDT', '0x0', 6, 'hot_wallet', '0x1', '0x2', 7, 'Completed',
               'top_up', 1)`,
      [sweepId],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_items (sweep_id, network, currency, address, derivation_index,
                                expected_amount, authorized, status)
       VALUES ($1, 'ETHEREUM', 'USDT', $2, 1, 1, false, 'Swept')`,
      [sweepId, address],
    );
    await api.dataSource.query(
      `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, step, tx_hash,
                                   raw_transaction, status)
       VALUES ($1, 1, 'ETHEREUM', 'batch', $2, '0x', 'Mined'),
              ($1, 2, 'ETHEREUM', 'transfer', $3, '0x', 'Mined')`,
      [sweepId, topUpHash, txHash],
    );
    const line = { currency: 'ETH', network: 'ETHEREUM' };
    await api.dataSource.transaction((manager) =>
      ledger.postMany(manager, [
        {
          reference: `sweep_top_up:ETHEREUM:${topUpHash}`,
          kind: 'sweep_top_up',
          lines: [
            { account: LedgerAccounts.deposits('ETHEREUM', 'ETH'), amount: wei(topUp), ...line },
            { account: LedgerAccounts.sweeper('ETHEREUM', 'ETH'), amount: wei(-topUp), ...line },
          ],
        },
        // Booked from a first receipt 300 wei dearer than the final one.
        depositFeeEntry({
          network: 'ETHEREUM',
          txHash,
          feeBaseUnits: fee + 300n,
          coin: ETH,
          block: { number: 1, hash: '0xdead' },
        }),
      ]),
    );
    const pass = await finality.finalize('ETHEREUM', 1000);
    expect(pass.adjusted).toBeGreaterThanOrEqual(1);

    // What the address holds after its transfer burnt the final fee.
    const onChain = topUp - fee;
    const journal = chain.worker.get(EvmTopUpJournalRepository, { strict: false });
    expect(await journal.ownCoin('ETHEREUM', address, ETH)).toBe(onChain);
    const strangers = chain.worker.get(StrangerCoin, { strict: false });
    expect(await strangers.book('ETHEREUM', address, onChain, 100)).toBe(0n);
  });
});
