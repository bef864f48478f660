import type { INestApplicationContext } from '@nestjs/common';
import { getAddress, Transaction } from 'ethers';
import { startWorker } from '../support/in-process-worker';
import { DEVNET_ACCOUNTS, Devnet } from '../support/devnet';
import { useSweepingChainSuite } from '../support/sweep-suite';
import { TOP_UP_SWEEPER, topUpEnvironment } from '../support/top-up-env';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
const TIMEOUT_MS = 60_000;

interface StepRow {
  step: string;
  status: string;
  tx_hash: string;
  raw_transaction: string;
}

/** numeric(38, 18) ETH as wei: the 18 decimals are the wei, digit for digit. */
const wei = (amount: string): bigint => {
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
  return amount.startsWith('-') ? -value : value;
};

/*
 * The gas top-up fallback (`gasTopUp: true`, for nodes that refuse type-4 transactions) on anvil:
 * the sweeper sends a deposit address the gas of its token transfer, the address sends its whole
 * balance to the hot wallet itself. Deposits arrive through a session and the deposit watcher.
 */
describe('EVM sweeps by gas top-up: the sweeper funds the gas, the deposit address sends its tokens', () => {
  let worker: INestApplicationContext | undefined;
  const chain = useSweepingChainSuite({
    sweepFiles: () => topUpEnvironment(),
    timeoutMs: TIMEOUT_MS,
    cleanUp: async () => {
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(() => ({ devnet, api, merchant } = chain));

  const linesOf = async (reference: string): Promise<Array<{ account: string; amount: string }>> =>
    api.dataSource.query(
      `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference LIKE $1 ORDER BY l.account`,
      [reference],
    );

  it(
    'empties the address of its tokens, leaves only ETH dust, and books match the chain',
    async () => {
      const { body: session } = await api
        .post(SESSIONS, merchant, {
          pricing_amount: '40',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      const address: string = session.pay_address;
      const hotBefore = await devnet.balanceOf('USDT', DEVNET_ACCOUNTS.hotWallet.address);
      const sweeperBefore = await devnet.provider.getBalance(TOP_UP_SWEEPER.address);
      await devnet.transfer('USDT', address, '40');

      worker = await startWorker();
      const sweepOf = async () =>
        (
          await api.dataSource.query(
            `SELECT s.id, s.status, s.tx_hash, s.nonce FROM sweeps s
               JOIN sweep_items i ON i.sweep_id = s.id WHERE lower(i.address) = lower($1)`,
            [address],
          )
        )[0] as { id: string; status: string; tx_hash: string; nonce: string } | undefined;
      await waitFor(async () => (await sweepOf())?.status === 'Completed', TIMEOUT_MS);
      const sweep = (await sweepOf())!;

      const steps: StepRow[] = await api.dataSource.query(
        `SELECT step, status, tx_hash, raw_transaction FROM sweep_attempts
          WHERE sweep_id = $1 ORDER BY attempt_number`,
        [sweep.id],
      );
      expect(steps.map((step) => [step.step, step.status])).toEqual([
        ['batch', 'Mined'],
        ['transfer', 'Mined'],
      ]);
      const [topUp, transfer] = steps;
      expect(sweep.tx_hash).toBe(transfer.tx_hash);

      // On chain: two type-2 transactions, the sweeper's to the address, the address's to USDT.
      const topUpTx = (await devnet.provider.getTransaction(topUp.tx_hash))!;
      expect(topUpTx.type).toBe(2);
      expect(getAddress(topUpTx.from)).toBe(TOP_UP_SWEEPER.address);
      expect(getAddress(topUpTx.to!)).toBe(getAddress(address));
      expect(topUpTx.nonce).toBe(Number(sweep.nonce));
      const transferTx = (await devnet.provider.getTransaction(transfer.tx_hash))!;
      expect(transferTx.type).toBe(2);
      expect(getAddress(transferTx.from)).toBe(getAddress(address));
      expect(getAddress(transferTx.to!)).toBe(getAddress(devnet.tokens.USDT.contract));
      // The top-up is exactly the transfer's gas limit at its fee cap (the address held none).
      expect(topUpTx.value).toBe(transferTx.gasLimit * transferTx.maxFeePerGas!);
      expect(Transaction.from(transfer.raw_transaction).hash).toBe(transfer.tx_hash);

      // The address: no tokens, a little ETH: the top-up less what its transfer burnt.
      const topUpReceipt = (await devnet.provider.getTransactionReceipt(topUp.tx_hash))!;
      const transferReceipt = (await devnet.provider.getTransactionReceipt(transfer.tx_hash))!;
      const topUpFee = topUpReceipt.gasUsed * topUpReceipt.gasPrice;
      const transferFee = transferReceipt.gasUsed * transferReceipt.gasPrice;
      expect(await devnet.balanceOf('USDT', address)).toBe(0n);
      const dust = await devnet.provider.getBalance(address);
      expect(dust).toBe(topUpTx.value - transferFee);
      expect(dust).toBeGreaterThan(0n);
      expect(dust).toBeLessThan(topUpTx.value);
      expect((await devnet.balanceOf('USDT', DEVNET_ACCOUNTS.hotWallet.address)) - hotBefore).toBe(
        40_000_000n,
      );

      // The books, each from a confirmed receipt.
      expect(await linesOf(`sweep:ETHEREUM:${transfer.tx_hash}:%`)).toEqual([
        { account: 'deposits:ETHEREUM:USDT', amount: '-40.000000000000000000' },
        { account: 'hot_wallet:ETHEREUM:USDT', amount: '40.000000000000000000' },
      ]);
      const moved = await linesOf(`sweep_top_up:ETHEREUM:${topUp.tx_hash}`);
      expect(moved.map((line) => [line.account, wei(line.amount)])).toEqual([
        ['deposits:ETHEREUM:ETH', topUpTx.value],
        ['sweeper:ETHEREUM:ETH', -topUpTx.value],
      ]);
      const sweeperFee = await linesOf(`network_fee:ETHEREUM:${topUp.tx_hash}`);
      expect(sweeperFee.map((line) => [line.account, wei(line.amount)])).toEqual([
        ['network_fees:ETHEREUM:ETH', topUpFee],
        ['sweeper:ETHEREUM:ETH', -topUpFee],
      ]);
      const depositFee = await linesOf(`network_fee:ETHEREUM:${transfer.tx_hash}`);
      expect(depositFee.map((line) => [line.account, wei(line.amount)])).toEqual([
        ['deposits:ETHEREUM:ETH', -transferFee],
        ['network_fees:ETHEREUM:ETH', transferFee],
      ]);
      // What the books hold on deposit addresses in ETH is the dust on chain, to the wei.
      expect(wei(moved[0].amount) + wei(depositFee[0].amount)).toBe(dust);
      // The sweeper's ETH went down by the top-up and its gas, both booked.
      const sweeperAfter = await devnet.provider.getBalance(TOP_UP_SWEEPER.address);
      expect(sweeperBefore - sweeperAfter).toBe(topUpTx.value + topUpFee);

      // A sweep moves the service's holdings, never a merchant's balance: 40 paid, 1 % fee.
      const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
      expect(balances).toEqual([
        {
          currency: 'USDT',
          network: 'ETHEREUM',
          sub_merchant_code: null,
          available: '39.6',
          held: '0',
        },
      ]);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'sweeps an address someone sent more coin than the gas, topping up the whole gas (coin not ours is never spent by the books)',
    async () => {
      const { body: session } = await api
        .post(SESSIONS, merchant, {
          pricing_amount: '25',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      const address: string = session.pay_address;
      // A stranger's 1 ETH: far more than a transfer's gas. Before, the top-up subtracted it,
      // came to zero or less, and the address was skipped on every pass, for good.
      const foreign = 10n ** 18n;
      await devnet.provider.send('anvil_setBalance', [address, `0x${foreign.toString(16)}`]);
      await devnet.transfer('USDT', address, '25');
      worker ??= await startWorker();
      const sweepOf = async () =>
        (
          await api.dataSource.query(
            `SELECT s.id, s.status, s.kind FROM sweeps s
               JOIN sweep_items i ON i.sweep_id = s.id WHERE lower(i.address) = lower($1)`,
            [address],
          )
        )[0] as { id: string; status: string; kind: string } | undefined;
      await waitFor(async () => (await sweepOf())?.status === 'Completed', TIMEOUT_MS);
      const sweep = (await sweepOf())!;
      expect(sweep.kind).toBe('top_up');
      expect(await devnet.balanceOf('USDT', address)).toBe(0n);
      const steps: StepRow[] = await api.dataSource.query(
        `SELECT step, status, tx_hash, raw_transaction FROM sweep_attempts
          WHERE sweep_id = $1 ORDER BY attempt_number`,
        [sweep.id],
      );
      expect(steps.map((step) => [step.step, step.status])).toEqual([
        ['batch', 'Mined'],
        ['transfer', 'Mined'],
      ]);
      const topUpTx = (await devnet.provider.getTransaction(steps[0].tx_hash))!;
      const transferTx = (await devnet.provider.getTransaction(steps[1].tx_hash))!;
      // The stranger's coin is not ours: the top-up is the whole gas, as if it were not there.
      expect(topUpTx.value).toBe(transferTx.gasLimit * transferTx.maxFeePerGas!);
    },
    2 * TIMEOUT_MS,
  );
});
