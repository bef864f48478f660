import type { INestApplicationContext } from '@nestjs/common';
import { getAddress } from 'ethers';
import { startWorker } from '../support/in-process-worker';
import { DEVNET_ACCOUNTS, Devnet } from '../support/devnet';
import { DEVNET_SWEEPER, sweepEnvironment } from '../support/sweep-env';
import { useSweepingChainSuite } from '../support/sweep-suite';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
const TIMEOUT_MS = 60_000;

interface SweepRow {
  id: string;
  status: string;
  destination: string;
  tx_hash: string | null;
}

describe('EVM sweeps: deposit addresses emptied into the hot wallet by EIP-7702 batches', () => {
  let delegate: string;
  let worker: INestApplicationContext | undefined;
  // An earlier sweep suite in this run left the sweeper's nonce of its own chain: `sweeps`.
  const chain = useSweepingChainSuite({
    sweepFiles: async (devnet) => {
      const sweep = await sweepEnvironment(devnet);
      delegate = sweep.delegate;
      return sweep.environment;
    },
    timeoutMs: TIMEOUT_MS,
    cleanUp: async () => {
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let sweptBefore: string[] = [];
  let sweptBeforeTx = '';
  beforeAll(() => ({ devnet, api, merchant } = chain));

  async function paidSessions(
    amounts: string[],
  ): Promise<Array<{ id: string; pay_address: string }>> {
    const sessions = [];
    for (const amount of amounts) {
      const { body } = await api
        .post(SESSIONS, merchant, {
          pricing_amount: amount,
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      sessions.push(body as { id: string; pay_address: string });
    }
    for (const [index, session] of sessions.entries()) {
      await devnet.transfer('USDT', session.pay_address, amounts[index]);
    }
    return sessions;
  }

  async function sweepsOf(addresses: string[]): Promise<SweepRow[]> {
    return api.dataSource.query(
      `SELECT DISTINCT s.id, s.status, s.destination, s.tx_hash, s.created_at
         FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE lower(i.address) = ANY($1) ORDER BY s.created_at`,
      [addresses.map((address) => address.toLowerCase())],
    );
  }

  async function tokenBalance(address: string): Promise<bigint> {
    return devnet.balanceOf('USDT', address);
  }

  it(
    'sweeps paid sessions once, books the exact amounts and gas, and never funds a deposit address',
    async () => {
      const sessions = await paidSessions(['10', '20', '30']);
      const addresses = sessions.map((session) => session.pay_address);
      sweptBefore = addresses;
      const hotBefore = await tokenBalance(DEVNET_ACCOUNTS.hotWallet.address);

      worker = await startWorker();
      await waitFor(async () => {
        const sweeps = await sweepsOf(addresses);
        return sweeps.length > 0 && sweeps.every((sweep) => sweep.status === 'Completed');
      }, TIMEOUT_MS);

      const sweeps = await sweepsOf(addresses);
      expect(sweeps).toHaveLength(1);
      const [sweep] = sweeps;
      sweptBeforeTx = sweep.tx_hash!;
      expect(sweep.destination).toBe('hot_wallet');
      for (const address of addresses) {
        expect(await tokenBalance(address)).toBe(0n);
        // The sweeper paid everything: no native coin ever reached a deposit address.
        expect(await devnet.provider.getBalance(address)).toBe(0n);
      }
      expect((await tokenBalance(DEVNET_ACCOUNTS.hotWallet.address)) - hotBefore).toBe(60_000_000n);

      // One type-4 transaction from the sweeper, to the delegate, carrying three authorizations.
      const transaction = (await devnet.provider.getTransaction(sweep.tx_hash!))!;
      expect(transaction.type).toBe(4);
      expect(getAddress(transaction.from!)).toBe(DEVNET_SWEEPER.address);
      expect(getAddress(transaction.to!)).toBe(getAddress(delegate));
      expect(transaction.authorizationList).toHaveLength(3);

      // The books: each address's tokens moved from deposits to the hot wallet, exactly.
      const moved: Array<{ account: string; total: string }> = await api.dataSource.query(
        `SELECT l.account, sum(l.amount)::text AS total
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference LIKE $1 GROUP BY l.account ORDER BY l.account`,
        [`sweep:ETHEREUM:${sweep.tx_hash}:%`],
      );
      expect(moved).toEqual([
        { account: 'deposits:ETHEREUM:USDT', total: '-60.000000000000000000' },
        { account: 'hot_wallet:ETHEREUM:USDT', total: '60.000000000000000000' },
      ]);
      const items: Array<{ amount: string; status: string }> = await api.dataSource.query(
        `SELECT amount::text, status FROM sweep_items WHERE sweep_id = $1 ORDER BY amount`,
        [sweep.id],
      );
      expect(items).toEqual([
        { amount: '10.000000000000000000', status: 'Swept' },
        { amount: '20.000000000000000000', status: 'Swept' },
        { amount: '30.000000000000000000', status: 'Swept' },
      ]);

      // The sweeper's gas, to the wei of the receipt, as an expense.
      const receipt = (await devnet.provider.getTransactionReceipt(sweep.tx_hash!))!;
      const feeWei = receipt.gasUsed * receipt.gasPrice;
      const fee: Array<{ account: string; amount: string }> = await api.dataSource.query(
        `SELECT l.account, l.amount::text FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 ORDER BY l.account`,
        [`network_fee:ETHEREUM:${sweep.tx_hash}`],
      );
      expect(fee.map((line) => line.account)).toEqual([
        'network_fees:ETHEREUM:ETH',
        'sweeper:ETHEREUM:ETH',
      ]);
      // numeric(38, 18): the ETH amount's 18 decimals are the wei, digit for digit.
      expect(BigInt(fee[0].amount.replace('.', ''))).toBe(feeWei);
      expect(fee[1].amount).toBe(`-${fee[0].amount}`);

      // A sweep moves the service's own holdings, never a merchant's balance: 60 paid, 1 % fee.
      const { body: balances } = await api.get('/v1/balances', merchant).expect(200);
      expect(balances).toEqual([
        {
          currency: 'USDT',
          network: 'ETHEREUM',
          sub_merchant_code: null,
          available: '59.4',
          held: '0',
        },
      ]);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'sweeps an address again without a new authorization once it delegates',
    async () => {
      const { body: session } = await api
        .post(SESSIONS, merchant, {
          pricing_amount: '15',
          pricing_currency: 'USD',
          currency: 'USDT',
          network: 'ETHEREUM',
        })
        .expect(201);
      // A second payment to a session already paid: an unmatched transfer, on the same address.
      // An address the first test swept (not one of earlier suites' chains, nor the new session's).
      const again = sweptBefore[0];
      // In one block, so that one batch is likely to take both (the checks below hold either way).
      await devnet.transferMany([
        { currency: 'USDT', to: session.pay_address, amount: '15' },
        { currency: 'USDT', to: again, amount: '7' },
      ]);
      await waitFor(async () => {
        const sweeps = await sweepsOf([session.pay_address, again]);
        // The first test's sweep and at least one more, every one ended.
        return (
          (await tokenBalance(again)) === 0n &&
          (await tokenBalance(session.pay_address)) === 0n &&
          sweeps.length >= 2 &&
          sweeps.every((sweep) => sweep.status === 'Completed')
        );
      }, TIMEOUT_MS);
      const latest: Array<{ id: string; tx_hash: string; authorized: boolean }> =
        await api.dataSource.query(
          `SELECT s.id, s.tx_hash, i.authorized FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
            WHERE lower(i.address) = lower($1) AND i.status = 'Swept'
            ORDER BY s.created_at DESC LIMIT 1`,
          [again],
        );
      expect(latest[0].tx_hash).not.toBe(sweptBeforeTx);
      expect(latest[0].authorized).toBe(false);
      // The transaction carries exactly the authorizations of its items that needed one (the new
      // session's address, when the batch took it too), all to the delegate.
      const needing = await api.count('sweep_items', 'sweep_id = $1 AND authorized', [
        latest[0].id,
      ]);
      const transaction = (await devnet.provider.getTransaction(latest[0].tx_hash))!;
      const authorizations = transaction.authorizationList ?? [];
      expect(authorizations).toHaveLength(needing);
      for (const authorization of authorizations) {
        expect(getAddress(authorization.address)).toBe(getAddress(delegate));
      }
    },
    2 * TIMEOUT_MS,
  );
});
