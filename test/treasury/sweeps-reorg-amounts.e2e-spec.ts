import Decimal from 'decimal.js';
import { toQuantity } from 'ethers';
import { receiptFeeWei } from '@app/chains';
import { LedgerService } from '@app/ledger';
import { NetworkFeeFinality } from '@app/treasury';
import { DEVNET_ACCOUNTS, Devnet } from '../support/devnet';
import { devnetSweeper, sweepEnvironment } from '../support/sweep-env';
import { useSweepingChainSuite } from '../support/sweep-suite';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
const TIMEOUT_MS = 60_000;
const FINALITY_BLOCKS = 8;
const HOT_WALLET_USDT = 'hot_wallet:ETHEREUM:USDT';
const SWEEPER = devnetSweeper(19);

/*
 * The chaos soak (seed 612) ended with books = chain in total but not per location: deposits
 * below the chain, the hot wallet above, by what sweeps in the reorged blocks had booked. A batch
 * sweep moves an address's whole balance; the reorg mined the same signed bytes again before the
 * payment it had swept (or never with it: a double spend), so it moved nothing, without a change
 * of status. Fees became final, the token amounts booked from the first receipt stayed.
 */
describe('Sweeps: amounts a reorg changed, corrected once final', () => {
  const chain = useSweepingChainSuite({
    networksFile: { finalityBlocks: FINALITY_BLOCKS },
    sweepFiles: async (devnet) => {
      // anvil funds accounts #0-#9 only: this suite's own sweeper (a sweeper's nonces belong to
      // one suite in the shared database) is funded here.
      await devnet.provider.send('anvil_setBalance', [
        SWEEPER.address,
        '0x' + (10n ** 20n).toString(16),
      ]);
      const tokens = [devnet.tokens.USDT.contract, devnet.tokens.USDC.contract];
      return (await sweepEnvironment(devnet, {}, tokens, SWEEPER)).environment;
    },
    worker: true,
    timeoutMs: 2 * TIMEOUT_MS,
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  /** Sum of an account's lines, in the token's base units (6 decimals). */
  async function booked(account: string): Promise<bigint> {
    const [row]: Array<{ units: string }> = await api.dataSource.query(
      `SELECT (COALESCE(sum(amount), 0) * 1e6)::numeric(78, 0)::text AS units
         FROM ledger_lines WHERE account = $1`,
      [account],
    );
    return BigInt(row.units);
  }

  /**
   * A paid session's address swept to the hot wallet, then the reorg: the payment's and the
   * sweep's blocks dropped, and only the sweep's signed bytes mined again (at half the first
   * block's base fee with `cheaper`, so its fee changes too).
   */
  async function sweepMinedAgainWithoutPayment(cheaper = false) {
    const hot = DEVNET_ACCOUNTS.hotWallet.address;
    const { body: session } = await api
      .post(SESSIONS, merchant, {
        pricing_amount: '12',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    const beforePayment = await devnet.snapshot();
    const chainBefore = await devnet.balanceOf('USDT', hot);
    const booksBefore = await booked(HOT_WALLET_USDT);
    await devnet.transfer('USDT', session.pay_address as string, '12');

    let sweep: { id: string; tx_hash: string } | undefined;
    await waitFor(
      async () => {
        const rows: Array<{ id: string; tx_hash: string; status: string }> =
          await api.dataSource.query(
            `SELECT s.id, s.tx_hash, s.status FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
              WHERE lower(i.address) = lower($1)`,
            [session.pay_address],
          );
        sweep = rows.find((row) => row.status === 'Completed');
        return sweep !== undefined;
      },
      TIMEOUT_MS,
      'the sweep completed',
    );
    const txHash = sweep!.tx_hash;
    expect((await booked(HOT_WALLET_USDT)) - booksBefore).toBe(12_000_000n);

    const signed = (await devnet.provider.send('eth_getRawTransactionByHash', [txHash])) as string;
    const first = await devnet.provider.send('eth_getTransactionReceipt', [txHash]);
    const { baseFeePerGas } = await devnet.provider.send('eth_getBlockByNumber', [
      first.blockNumber,
      false,
    ]);
    await devnet.revert(beforePayment);
    await devnet.mine(1);
    if (cheaper) {
      await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [
        toQuantity(BigInt(baseFeePerGas) / 2n),
      ]);
    }
    await devnet.provider.send('eth_sendRawTransaction', [signed]);
    await waitFor(
      async () => (await devnet.provider.send('eth_getTransactionReceipt', [txHash])) !== null,
      10_000,
      'the sweep mined again',
    );
    expect((await devnet.balanceOf('USDT', hot)) - chainBefore).toBe(0n);
    return { txHash, sweepId: sweep!.id, booksBefore };
  }

  it(
    'puts back into deposits what the sweep mined again did not move, once',
    async () => {
      const { txHash, sweepId, booksBefore } = await sweepMinedAgainWithoutPayment();

      const finality = chain.worker.get(NetworkFeeFinality, { strict: false });
      await devnet.mine(FINALITY_BLOCKS);
      const reference = `sweep_reorg:ETHEREUM:${txHash}`;
      // Passes until it is booked: a pass that read the receipt while it was gone (between the
      // revert and the sweep mined again) put the fee off 30 s, and the worker's own pass may
      // get there first; either way, once. (CI's shared database holds other suites' fees too.)
      await waitFor(
        async () => {
          await finality.finalize('ETHEREUM');
          return (await api.count('ledger_entries', 'reference = $1', [reference])) === 1;
        },
        TIMEOUT_MS,
        'the correction booked',
      );
      const lines: Array<{ account: string; amount: string }> = await api.dataSource.query(
        `SELECT l.account, l.amount::text FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
          WHERE e.reference = $1 ORDER BY l.account`,
        [reference],
      );
      expect(lines).toEqual([
        { account: 'deposits:ETHEREUM:USDT', amount: '12.000000000000000000' },
        { account: HOT_WALLET_USDT, amount: '-12.000000000000000000' },
      ]);
      expect((await booked(HOT_WALLET_USDT)) - booksBefore).toBe(0n);
      const [item]: Array<{ amount: string }> = await api.dataSource.query(
        `SELECT amount::text FROM sweep_items WHERE sweep_id = $1`,
        [sweepId],
      );
      expect(item.amount).toBe('0.000000000000000000');

      // Again: nothing more.
      await devnet.mine(1);
      await finality.finalize('ETHEREUM');
      expect(await api.count('ledger_entries', 'reference = $1', [reference])).toBe(1);
    },
    3 * TIMEOUT_MS,
  );
  it(
    'rolls the fee correction back with a sweep correction it cannot post: all left to an operator',
    async () => {
      const { txHash, sweepId } = await sweepMinedAgainWithoutPayment(true);
      const [{ fee: bookedFee }]: Array<{ fee: string }> = await api.dataSource.query(
        `SELECT fee_base_units::text AS fee FROM network_fee_receipts
          WHERE network = 'ETHEREUM' AND tx_hash = $1`,
        [txHash],
      );
      // The sweep's correction reference taken already (as by a second reorg deeper than
      // finality): a zero-sum entry, so no balance changes.
      const ledger = chain.worker.get(LedgerService, { strict: false });
      const line = { currency: 'USDT', network: 'ETHEREUM' };
      await api.dataSource.transaction((manager) =>
        ledger.post(manager, {
          reference: `sweep_reorg:ETHEREUM:${txHash}`,
          kind: 'sweep_reorg',
          lines: [
            { account: 'deposits:ETHEREUM:USDT', amount: new Decimal('0.000001'), ...line },
            { account: 'deposits:ETHEREUM:USDT', amount: new Decimal('-0.000001'), ...line },
          ],
        }),
      );

      const finality = chain.worker.get(NetworkFeeFinality, { strict: false });
      await devnet.mine(FINALITY_BLOCKS);
      await waitFor(
        async () => {
          await finality.finalize('ETHEREUM');
          const [row] = await api.dataSource.query(
            `SELECT operator_since IS NOT NULL AS operator FROM network_fee_receipts
              WHERE network = 'ETHEREUM' AND tx_hash = $1`,
            [txHash],
          );
          return row.operator;
        },
        TIMEOUT_MS,
        'the fee left for an operator',
      );
      // The fee did change (cheaper block), yet nothing of it was committed.
      const final = await devnet.provider.send('eth_getTransactionReceipt', [txHash]);
      expect(receiptFeeWei(final, { opStack: false })!.toString()).not.toBe(bookedFee);
      expect(
        await api.count('ledger_entries', 'reference = $1', [
          `network_fee_adjustment:ETHEREUM:${txHash}`,
        ]),
      ).toBe(0);
      const [row] = await api.dataSource.query(
        `SELECT fee_base_units::text AS fee, final_at IS NULL AS open FROM network_fee_receipts
          WHERE network = 'ETHEREUM' AND tx_hash = $1`,
        [txHash],
      );
      expect(row).toEqual({ fee: bookedFee, open: true });
      const [item]: Array<{ amount: string }> = await api.dataSource.query(
        `SELECT amount::text FROM sweep_items WHERE sweep_id = $1`,
        [sweepId],
      );
      expect(item.amount).toBe('12.000000000000000000');
    },
    3 * TIMEOUT_MS,
  );
});
