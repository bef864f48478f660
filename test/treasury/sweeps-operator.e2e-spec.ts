import Decimal from 'decimal.js';
import { Contract, formatUnits, getAddress, parseEther, toQuantity, Transaction } from 'ethers';
import { NetworkFeeFinality, SweepStatus } from '@app/treasury';
import { SweepBroadcaster } from '@app/treasury/sweeps/sweep-broadcaster';
import { COMMANDS } from '../../apps/cli/src/commands';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { rpcErrorReply, rpcResultReply, RpcProxy } from '../support/rpc-proxy';
import { devnetSweeper } from '../support/sweep-env';
import { useSweepSuite } from '../support/sweep-suite';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TIMEOUT_MS = 60_000;
// anvil funds accounts #0-#9 only: this suite's own sweeper is funded by the test.
const SWEEPER = devnetSweeper(11);
const ETH = (wei: bigint) => new Decimal(formatUnits(wei, 18)).toFixed();
// What a plain transfer costs where L1 data is paid in L2 gas (Arbitrum): above 21,000.
const L2_PLAIN_TRANSFER_GAS = 30_000n;
/** The OP-stack GasPriceOracle predeploy (getL1Fee). */
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';

interface SweepRow {
  id: string;
  status: string;
  nonce: string | null;
  tx_hash: string | null;
  error_reason: string | null;
}

interface AttemptRow {
  step: string;
  status: string;
  tx_hash: string;
  raw_transaction: string;
  max_fee_per_gas: string;
}

/*
 * The operator's side of sweeps, each pass run by the test (the worker only watches deposits):
 * chains:forget starts the sweeper's nonces again, treasury:status reads only, a stuck nonce is
 * cancelled (its fee booked to the wei), a stuck gas top-up is replaced under the cap, and an
 * address that keeps refusing backs off. USDT is the blacklisting NoReturnToken.
 */
describe('Sweeps, the operator and the stuck: forget, status, cancel, replace, back off', () => {
  const suite = useSweepSuite({
    sweeper: SWEEPER,
    fundSweeper: 10n ** 20n,
    // The sweeping side's RPC URL (the test's own reads and sends go to anvil directly).
    proxy: true,
    // No backoff unless a test asks for one: its passes follow each other within seconds.
    settings: { retryBackoffSeconds: 0 },
  });
  const { useSettings, pass } = suite;
  let devnet: Devnet;
  let api: TestApi;
  let merchant: TestMerchant;
  let usdt: Contract;
  let toppedUp: string;
  let proxy: RpcProxy;

  beforeAll(() => {
    ({ devnet, api, merchant, usdt, proxy } = suite);
  });

  afterEach(async () => {
    proxy.intercept(undefined);
    await devnet.provider.send('evm_setAutomine', [true]);
  });

  /**
   * The node behind the proxy counts L1 data in L2 gas, as Arbitrum's do: a plain transfer
   * (no data) is estimated at L2_PLAIN_TRANSFER_GAS and refused with a lower gas limit.
   */
  function emulateL2(): void {
    proxy.intercept((request) => {
      if (request.method === 'eth_estimateGas') {
        const [call] = request.params as [{ data?: string; input?: string }];
        if (!call.data && !call.input) {
          return rpcResultReply(request, toQuantity(L2_PLAIN_TRANSFER_GAS));
        }
      }
      if (request.method === 'eth_sendRawTransaction') {
        const tx = Transaction.from((request.params as string[])[0]);
        if (tx.data === '0x' && tx.gasLimit < L2_PLAIN_TRANSFER_GAS) {
          return rpcErrorReply(request, -32000, 'intrinsic gas too low');
        }
      }
      return undefined;
    });
  }

  const automine = (on: boolean) => devnet.provider.send('evm_setAutomine', [on]);

  async function paid(currency: 'USDT' | 'USDC', amount: string): Promise<string> {
    const { body } = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: amount,
        pricing_currency: 'USD',
        currency,
        network: 'ETHEREUM',
      })
      .expect(201);
    const address = body.pay_address as string;
    if (currency === 'USDC') await devnet.transfer('USDC', address, amount);
    else {
      const payer = usdt.connect(devnet.payer) as Contract;
      await (await payer.getFunction('transfer')(address, BigInt(amount) * 10n ** 6n)).wait();
    }
    await waitFor(
      async () =>
        (await api.count(
          'session_transactions t JOIN checkout_sessions s ON s.id = t.session_id',
          `s.pay_address = $1 AND t.status = 'Confirmed'`,
          [address],
        )) === 1,
      TIMEOUT_MS,
      'the payment confirmed',
    );
    return address;
  }

  const sweepsOf = (address: string): Promise<SweepRow[]> =>
    api.dataSource.query(
      `SELECT s.id, s.status, s.nonce::text, s.tx_hash, s.error_reason
         FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
        WHERE lower(i.address) = lower($1) ORDER BY s.created_at`,
      [address],
    );

  const attempts = (sweepId: string): Promise<AttemptRow[]> =>
    api.dataSource.query(
      `SELECT step, status, tx_hash, raw_transaction, max_fee_per_gas::text FROM sweep_attempts
        WHERE sweep_id = $1 ORDER BY attempt_number`,
      [sweepId],
    );

  /** Ledger lines per account of the entry with this reference. */
  async function booked(reference: string): Promise<Array<{ account: string; total: string }>> {
    const rows: Array<{ account: string; total: string }> = await api.dataSource.query(
      `SELECT l.account, sum(l.amount)::text AS total
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference = $1 GROUP BY l.account ORDER BY l.account`,
      [reference],
    );
    return rows.map((row) => ({ account: row.account, total: new Decimal(row.total).toFixed() }));
  }

  /**
   * The sweeper's balance change over the block of `txHash`, its only transaction there (mined
   * alone with evm_mine), in wei.
   */
  async function sweeperChange(txHash: string): Promise<bigint> {
    const { blockNumber } = (await devnet.provider.getTransactionReceipt(txHash))!;
    const block = (await devnet.provider.getBlock(blockNumber))!;
    const ours = [];
    for (const hash of block.transactions) {
      const tx = (await devnet.provider.getTransaction(hash))!;
      if (getAddress(tx.from) === SWEEPER.address) ours.push(hash);
    }
    expect(ours).toEqual([txHash]);
    return (
      (await devnet.provider.getBalance(SWEEPER.address, blockNumber)) -
      (await devnet.provider.getBalance(SWEEPER.address, blockNumber - 1))
    );
  }

  const feeOf = async (txHash: string) => {
    const receipt = (await devnet.provider.getTransactionReceipt(txHash))!;
    return receipt.gasUsed * receipt.gasPrice;
  };

  /** Passes until the address's newest sweep has ended. */
  async function passUntilEnded(address: string, now?: Date): Promise<SweepRow> {
    let newest: SweepRow | undefined;
    await waitFor(
      async () => {
        await pass(now);
        newest = (await sweepsOf(address)).at(-1);
        return newest !== undefined && newest.status !== 'Processing';
      },
      TIMEOUT_MS,
      'the sweep ended',
    );
    return newest!;
  }

  it(
    'chains:forget ends the sweeps of the forgotten chain and starts the sweeper nonces again from the node count',
    async () => {
      await useSettings({});
      // What a chain since restarted left: a finished sweep with nonce 0, one in flight with
      // nonce 1, and the lane at 2. The new chain's count for the sweeper is 0.
      for (const [id, nonce, status] of [
        ['sw_forgotten_done', 0, 'Completed'],
        ['sw_forgotten_live', 1, 'Processing'],
      ] as const) {
        await api.dataSource.query(
          `INSERT INTO sweeps (id, network, currency, token_contract, token_decimals, destination,
                               destination_address, sweeper_address, nonce, status, kind)
           VALUES ($1, 'ETHEREUM', 'USDC', $2, 6, 'hot_wallet', $3, $4, $5, $6, 'batch')`,
          [
            id,
            devnet.tokens.USDC.contract,
            DEVNET_ACCOUNTS.hotWallet.address,
            SWEEPER.address,
            nonce,
            status,
          ],
        );
      }
      await api.dataSource.query(
        `INSERT INTO sweep_attempts (sweep_id, attempt_number, network, tx_hash, raw_transaction,
                                     max_fee_per_gas, max_priority_fee_per_gas, gas_limit, status)
         VALUES ('sw_forgotten_live', 1, 'ETHEREUM', $1, '0x02', 1, 1, 21000, 'Broadcast')`,
        [`0x${'f'.repeat(64)}`],
      );
      await api.dataSource.query(
        `UPDATE treasury_wallets SET next_nonce = 2 WHERE network = 'ETHEREUM' AND role = 'sweeper'`,
      );

      const forgotten = await COMMANDS['chains:forget'](suite.context, { network: 'ETHEREUM' }, []);
      expect(forgotten).toMatchObject({ ended_sweeps: 1, sweeper_nonce_reset: true });
      const [live] = await api.dataSource.query(
        `SELECT status, error_reason FROM sweeps WHERE id = 'sw_forgotten_live'`,
      );
      expect(live.status).toBe('Failed');
      expect(live.error_reason).toMatch(/forgotten/);
      expect(await attempts('sw_forgotten_live')).toMatchObject([{ status: 'Superseded' }]);

      // The new chain's first sweep takes the node's count, 0 again, and is mined.
      const address = await paid('USDC', '10');
      const done = await passUntilEnded(address);
      expect(done).toMatchObject({ status: 'Completed', nonce: '0' });
      expect(await devnet.balanceOf('USDC', address)).toBe(0n);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'treasury:status writes nothing: no transfer ingested, no address cleared',
    async () => {
      const address = await paid('USDC', '11');
      const snapshot = async () => ({
        addresses: await api.dataSource.query(
          `SELECT * FROM sweep_addresses WHERE network = 'ETHEREUM' ORDER BY currency, address`,
        ),
        cursors: await api.dataSource.query(
          `SELECT * FROM sweep_cursors WHERE network = 'ETHEREUM' ORDER BY currency`,
        ),
      });
      const before = await snapshot();
      const [status] = await suite.context.get(SweepStatus).report('ETHEREUM');
      const usdc = status.tokens.find((token) => token.currency === 'USDC')!;
      // The payment shows although no pass has read it yet...
      expect(usdc.eligible.addresses).toBeGreaterThanOrEqual(1);
      // ...and the status changed nothing of the planner's.
      expect(await snapshot()).toEqual(before);
      await passUntilEnded(address);
    },
    TIMEOUT_MS,
  );

  it(
    'cancels a stuck sweep nonce with a zero-value send, ends the sweep on its receipt with its fee booked to the wei, and sweeps the address again',
    async () => {
      const address = await paid('USDC', '12');
      await automine(false);
      const signed = await pass();
      expect(signed.sweeps).toHaveLength(1);
      const sweepId = signed.sweeps[0];
      const [batch] = await attempts(sweepId);
      const [{ nonce }] = await api.dataSource.query(
        `SELECT nonce::int FROM sweeps WHERE id = $1`,
        [sweepId],
      );
      const cancel = (await COMMANDS['treasury:cancel-nonce'](
        suite.context,
        { network: 'ETHEREUM', nonce: String(nonce) },
        [],
      )) as { cancel_tx_hash: string; replaces: string[]; broadcast: string };
      expect(cancel.replaces).toEqual([batch.tx_hash]);
      expect(cancel.broadcast).toBe('accepted');
      const journaled = await attempts(sweepId);
      expect(journaled.map((row) => row.step)).toEqual(['batch', 'cancel']);
      const cancelTx = Transaction.from(journaled[1].raw_transaction);
      expect(cancelTx.nonce).toBe(nonce);
      expect(cancelTx.value).toBe(0n);
      expect(getAddress(cancelTx.to!)).toBe(SWEEPER.address);
      expect(cancelTx.maxFeePerGas! > BigInt(batch.max_fee_per_gas)).toBe(true);

      await devnet.provider.send('evm_mine', []);
      await automine(true);
      // The sweep itself (a pass may plan the address's next one right after it ends).
      let ended: SweepRow | undefined;
      await waitFor(
        async () => {
          await pass();
          ended = (await sweepsOf(address)).find((row) => row.id === sweepId);
          return ended?.status !== 'Processing';
        },
        TIMEOUT_MS,
        'the cancelled sweep ended',
      );
      expect(ended).toMatchObject({
        id: sweepId,
        status: 'Failed',
        tx_hash: cancel.cancel_tx_hash,
      });
      expect(ended!.error_reason).toMatch(/Cancelled by the operator/);
      expect(await devnet.provider.getTransaction(batch.tx_hash)).toBeNull();
      expect((await attempts(sweepId)).map((row) => [row.step, row.status])).toEqual([
        ['batch', 'Superseded'],
        ['cancel', 'Mined'],
      ]);
      // The cancel's fee, booked from its receipt: the books equal the chain to the wei.
      const fee = await feeOf(cancel.cancel_tx_hash);
      expect(await booked(`network_fee:ETHEREUM:${cancel.cancel_tx_hash}`)).toEqual([
        { account: 'network_fees:ETHEREUM:ETH', total: ETH(fee) },
        { account: 'sweeper:ETHEREUM:ETH', total: ETH(-fee) },
      ]);
      expect(await sweeperChange(cancel.cancel_tx_hash)).toBe(-fee);
      expect(await booked(`network_fee:ETHEREUM:${batch.tx_hash}`)).toEqual([]);
      // Nothing of it counts against the address: it is swept again.
      const again = await passUntilEnded(address);
      expect(again).toMatchObject({ status: 'Completed' });
      expect(again.id).not.toBe(sweepId);
      expect(await devnet.balanceOf('USDC', address)).toBe(0n);
      // The nonce is used: there is nothing left to cancel.
      await expect(
        COMMANDS['treasury:cancel-nonce'](
          suite.context,
          { network: 'ETHEREUM', nonce: String(nonce) },
          [],
        ),
      ).rejects.toThrow(`No sweep in Processing holds nonce ${nonce}`);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'replaces a stuck gas top-up with the same nonce and recipient under the cap, its transfer signed again at the new fees; mined under a base fee above the first bid, one top-up booked once',
    async () => {
      await useSettings({ gasTopUp: true });
      const address = await paid('USDC', '13');
      toppedUp = address;
      await automine(false);
      const signed = await pass();
      expect(signed.sweeps).toHaveLength(1);
      const sweepId = signed.sweeps[0];
      const [first] = await attempts(sweepId);
      // The cap at the first bid: any replacement would pass it, so the top-up waits.
      await useSettings({
        gasTopUp: true,
        maxGasPriceGwei: formatUnits(BigInt(first.max_fee_per_gas), 'gwei'),
      });
      const since = Date.now();
      let replaced = 0;
      await waitFor(
        async () => {
          replaced += (await pass()).tracked.replaced;
          return Date.now() - since > 3_000;
        },
        TIMEOUT_MS,
        'three seconds of passes past PAYOUT_REPLACE_AFTER_MS',
      );
      expect(replaced).toBe(0);

      await useSettings({ gasTopUp: true });
      await waitFor(async () => (await pass()).tracked.replaced > 0, TIMEOUT_MS, 'a replacement');
      const rows = await attempts(sweepId);
      // The transfer (never sent yet) signed again at the new fees, the top-up paying for them.
      expect(rows.map((row) => row.step)).toEqual(['batch', 'transfer', 'batch', 'transfer']);
      const [original, transfer, replacement, transferAgain] = rows.map((row) =>
        Transaction.from(row.raw_transaction),
      );
      expect(replacement.nonce).toBe(original.nonce);
      expect(replacement.to).toBe(original.to);
      expect(replacement.maxFeePerGas! > original.maxFeePerGas!).toBe(true);
      expect(transferAgain.maxFeePerGas).toBe(replacement.maxFeePerGas);
      expect([transferAgain.nonce, transferAgain.to, transferAgain.data]).toEqual([
        transfer.nonce,
        transfer.to,
        transfer.data,
      ]);
      expect(replacement.value - original.value).toBe(
        transfer.gasLimit * (replacement.maxFeePerGas! - original.maxFeePerGas!),
      );

      // The base fee rose above the first bid and stays there: only the new fees are mined.
      const baseFee = original.maxFeePerGas! + 1n;
      let ended: SweepRow | undefined;
      await waitFor(
        async () => {
          await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [toQuantity(baseFee)]);
          await devnet.provider.send('evm_mine', []);
          await pass();
          ended = (await sweepsOf(address)).find((row) => row.id === sweepId);
          return ended?.status !== 'Processing';
        },
        TIMEOUT_MS,
        'the sweep ended under a base fee above its first bid',
      );
      await automine(true);
      expect(ended!.status).toBe('Completed');
      expect(ended!.tx_hash).toBe(rows[3].tx_hash);
      expect((await attempts(sweepId))[1].status).toBe('Superseded');
      expect(await devnet.provider.getTransaction(rows[1].tx_hash)).toBeNull();
      const final = await attempts(sweepId);
      const mined = final.filter((row) => row.step === 'batch' && row.status === 'Mined');
      expect(mined).toHaveLength(1);
      const other = final.find((row) => row.step === 'batch' && row.status !== 'Mined')!;
      expect(other.status).toBe('Superseded');
      expect(await devnet.provider.getTransaction(other.tx_hash)).toBeNull();
      expect(await booked(`sweep_top_up:ETHEREUM:${other.tx_hash}`)).toEqual([]);
      expect(await booked(`network_fee:ETHEREUM:${other.tx_hash}`)).toEqual([]);
      // The sweeper paid the mined top-up's value and gas, and the books say exactly that.
      const value = Transaction.from(mined[0].raw_transaction).value;
      const fee = await feeOf(mined[0].tx_hash);
      expect(await booked(`sweep_top_up:ETHEREUM:${mined[0].tx_hash}`)).toEqual([
        { account: 'deposits:ETHEREUM:ETH', total: ETH(value) },
        { account: 'sweeper:ETHEREUM:ETH', total: ETH(-value) },
      ]);
      expect(await booked(`network_fee:ETHEREUM:${mined[0].tx_hash}`)).toEqual([
        { account: 'network_fees:ETHEREUM:ETH', total: ETH(fee) },
        { account: 'sweeper:ETHEREUM:ETH', total: ETH(-fee) },
      ]);
      expect(await sweeperChange(mined[0].tx_hash)).toBe(-(value + fee));
      expect(await devnet.balanceOf('USDC', address)).toBe(0n);
    },
    2 * TIMEOUT_MS,
  );

  it(
    'backs off a lone address that keeps refusing, exponentially, shows it in treasury:status, and starts again from zero once swept',
    async () => {
      await useSettings({ retryBackoffSeconds: 60 });
      const address = await paid('USDT', '14');
      await (await usdt.getFunction('addBlackList')(address)).wait();
      const row = async () =>
        (
          await api.dataSource.query(
            `SELECT unswept_in_row, unswept_at FROM sweep_addresses
              WHERE network = 'ETHEREUM' AND currency = 'USDT' AND address = $1`,
            [address],
          )
        )[0] as { unswept_in_row: number; unswept_at: Date | null };

      expect((await passUntilEnded(address)).status).toBe('Completed'); // SweepFailed inside
      expect(await row()).toMatchObject({ unswept_in_row: 1 });
      // Within its minute nothing is signed for it, pass after pass.
      for (let i = 0; i < 3; i++) expect((await pass()).sweeps).toEqual([]);
      expect(await sweepsOf(address)).toHaveLength(1);
      const [status] = await suite.context.get(SweepStatus).report('ETHEREUM');
      const waiting = status.backing_off.find((entry) => entry.address === address)!;
      expect(waiting).toMatchObject({ currency: 'USDT', unswept_in_row: 1 });
      const first = (await row()).unswept_at!;
      expect(new Date(waiting.until).getTime() - new Date(first).getTime()).toBe(60_000);

      // A minute later (as the pass sees it) it is tried again, refused again: two minutes now.
      const minuteLater = new Date(Date.now() + 61_000);
      await passUntilEnded(address, minuteLater);
      expect(await sweepsOf(address)).toHaveLength(2);
      expect(await row()).toMatchObject({ unswept_in_row: 2 });
      expect((await pass(new Date(Date.now() + 61_000))).sweeps).toEqual([]);
      const [later] = await suite.context.get(SweepStatus).report('ETHEREUM');
      const second = (await row()).unswept_at!;
      const until = later.backing_off.find((entry) => entry.address === address)!.until;
      expect(new Date(until).getTime() - new Date(second).getTime()).toBe(120_000);

      // The blacklist lifted: swept, and its backoff starts again from zero.
      await (await usdt.getFunction('removeBlackList')(address)).wait();
      await passUntilEnded(address, new Date(Date.now() + 121_000));
      expect(await usdt.getFunction('balanceOf')(address)).toBe(0n);
      expect(await row()).toMatchObject({ unswept_in_row: 0, unswept_at: null });
      const [after] = await suite.context.get(SweepStatus).report('ETHEREUM');
      expect(after.backing_off.find((entry) => entry.address === address)).toBeUndefined();
    },
    2 * TIMEOUT_MS,
  );

  it(
    "books a third party's native coin on a deposit address as unmatched when it is swept, once, and never the coin our top-ups left there",
    async () => {
      const strangerLines = async (address: string) =>
        (await api.dataSource.query(
          `SELECT l.account, l.amount::text FROM ledger_lines l
             JOIN ledger_entries e ON e.id = l.entry_id
            WHERE e.reference LIKE $1 ORDER BY l.account`,
          [`unmatched_native:ETHEREUM:${address}:%`],
        )) as Array<{ account: string; amount: string }>;
      const sendEth = async (to: string, eth: string) =>
        (await devnet.payer.sendTransaction({ to, value: parseEther(eth) })).wait();
      const usdcAgain = async (address: string, amount: string) => {
        // A second payment to a paid session's address: an unmatched transfer, swept again.
        await devnet.transfer('USDC', address, amount);
        await waitFor(
          async () =>
            (await api.count('unmatched_transfers', `to_address = $1 AND status = 'detected'`, [
              address,
            ])) === 1,
          TIMEOUT_MS,
          'the unmatched transfer detected',
        );
      };

      // EIP-7702 batches: 0.5 ETH sent before the address was ever delegated.
      await useSettings({});
      const address = await paid('USDC', '15');
      await sendEth(address, '0.5');
      expect((await passUntilEnded(address)).status).toBe('Completed');
      const expected = [
        { account: 'deposits:ETHEREUM:ETH', amount: '0.5' },
        { account: 'unmatched:ETHEREUM:ETH', amount: '-0.5' },
      ];
      const normalized = async (at: string) =>
        (await strangerLines(at)).map((line) => ({
          account: line.account,
          amount: new Decimal(line.amount).toFixed(),
        }));
      expect(await normalized(address)).toEqual(expected);
      expect(await devnet.provider.getBalance(address)).toBe(parseEther('0.5'));
      // Swept again: the same coin is not booked twice.
      await usdcAgain(address, '2');
      await waitFor(
        async () =>
          (await passUntilEnded(address)) && (await devnet.balanceOf('USDC', address)) === 0n,
        TIMEOUT_MS,
        'swept again',
      );
      expect(await normalized(address)).toEqual(expected);

      // Gas top-up: the address holds our dust; 0.3 ETH of a stranger's is booked, not the dust.
      // Its transfers' fees final first: beside a fee a reorg may still change, a stranger's coin
      // is not booked (review r9d, N1), and the devnet's ETHEREUM is final at 64 blocks.
      await devnet.provider.send('anvil_mine', [toQuantity(64)]);
      await waitFor(
        async () => {
          await suite.context.get(NetworkFeeFinality).finalize('ETHEREUM');
          const [{ open }]: Array<{ open: number }> = await api.dataSource.query(
            `SELECT count(*)::int AS open FROM network_fee_receipts r
               JOIN sweep_attempts a ON a.network = r.network AND a.tx_hash = r.tx_hash
               JOIN sweep_items i ON i.sweep_id = a.sweep_id
              WHERE lower(i.address) = lower($1) AND r.final_at IS NULL`,
            [toppedUp],
          );
          return open === 0;
        },
        TIMEOUT_MS,
        "the topped-up address's fees final",
      );
      await useSettings({ gasTopUp: true });
      await sendEth(toppedUp, '0.3');
      await usdcAgain(toppedUp, '3');
      await waitFor(
        async () =>
          (await passUntilEnded(toppedUp)) && (await devnet.balanceOf('USDC', toppedUp)) === 0n,
        TIMEOUT_MS,
        'the topped-up address swept again',
      );
      expect(await normalized(toppedUp)).toEqual([
        { account: 'deposits:ETHEREUM:ETH', amount: '0.3' },
        { account: 'unmatched:ETHEREUM:ETH', amount: '-0.3' },
      ]);
      // What the books hold on the address is what it holds, to the wei.
      const [{ booked }] = await api.dataSource.query(
        `SELECT COALESCE(sum(l.amount), 0)::text AS booked
           FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
          WHERE l.account = 'deposits:ETHEREUM:ETH'
            AND (e.reference LIKE $2 OR e.reference IN (
                  SELECT p || a.tx_hash FROM sweep_attempts a
                    JOIN sweep_items i ON i.sweep_id = a.sweep_id
                   CROSS JOIN (VALUES ('sweep_top_up:ETHEREUM:'), ('network_fee:ETHEREUM:')) AS v(p)
                   WHERE i.address = $1))`,
        [toppedUp, `unmatched_native:ETHEREUM:${toppedUp}:%`],
      );
      expect(parseEther(new Decimal(booked).toFixed())).toBe(
        await devnet.provider.getBalance(toppedUp),
      );
    },
    3 * TIMEOUT_MS,
  );

  /** Passes until this sweep of the address has ended (the next may be planned right after). */
  async function passUntilSweepEnded(address: string, sweepId: string): Promise<SweepRow> {
    let ended: SweepRow | undefined;
    await waitFor(
      async () => {
        await pass();
        ended = (await sweepsOf(address)).find((row) => row.id === sweepId);
        return ended !== undefined && ended.status !== 'Processing';
      },
      TIMEOUT_MS,
      'the sweep ended',
    );
    return ended!;
  }

  /** The sweep's nonce, after a pass (automine off) signed and sent its batch. */
  async function stuckBatch(address: string): Promise<{ sweepId: string; nonce: number }> {
    await automine(false);
    const signed = await pass();
    expect(signed.sweeps).toHaveLength(1);
    const [sweep] = await sweepsOf(address);
    expect(sweep.id).toBe(signed.sweeps[0]);
    return { sweepId: sweep.id, nonce: Number(sweep.nonce) };
  }

  it(
    "cancels with the node's own gas estimate where a plain transfer costs more than 21,000 gas (an L2 counting its L1 data)",
    async () => {
      await useSettings({});
      const address = await paid('USDC', '16');
      emulateL2();
      const { sweepId, nonce } = await stuckBatch(address);
      const cancel = (await COMMANDS['treasury:cancel-nonce'](
        suite.context,
        { network: 'ETHEREUM', nonce: String(nonce) },
        [],
      )) as { cancel_tx_hash: string; broadcast: string };
      expect(cancel.broadcast).toBe('accepted');
      const row = (await attempts(sweepId)).find((attempt) => attempt.step === 'cancel')!;
      expect(Transaction.from(row.raw_transaction).gasLimit).toBeGreaterThanOrEqual(
        L2_PLAIN_TRANSFER_GAS,
      );
      await devnet.provider.send('evm_mine', []);
      await automine(true);
      expect(await passUntilSweepEnded(address, sweepId)).toMatchObject({
        status: 'Failed',
        tx_hash: cancel.cancel_tx_hash,
      });
    },
    2 * TIMEOUT_MS,
  );

  it(
    "tops up with the node's own gas estimate there too: the top-up is taken and the address swept",
    async () => {
      await useSettings({ gasTopUp: true });
      const address = await paid('USDC', '17');
      emulateL2();
      expect(await passUntilEnded(address)).toMatchObject({ status: 'Completed' });
      expect(await devnet.balanceOf('USDC', address)).toBe(0n);
      const [sweep] = await sweepsOf(address);
      const [topUp] = await attempts(sweep.id);
      expect(Transaction.from(topUp.raw_transaction).gasLimit).toBeGreaterThanOrEqual(
        L2_PLAIN_TRANSFER_GAS,
      );
    },
    2 * TIMEOUT_MS,
  );

  it(
    'a cancel the node refuses holds nothing: the batch the node lost is replaced, mined and booked',
    async () => {
      await useSettings({});
      const address = await paid('USDC', '18');
      const { sweepId, nonce } = await stuckBatch(address);
      const [batch] = await attempts(sweepId);
      // The node loses the batch (a restart, an eviction) and refuses every cancel for good.
      await devnet.provider.send('anvil_dropTransaction', [batch.tx_hash]);
      proxy.intercept((request) => {
        if (request.method !== 'eth_sendRawTransaction') return undefined;
        const tx = Transaction.from((request.params as string[])[0]);
        return tx.data === '0x' && getAddress(tx.to!) === SWEEPER.address
          ? rpcErrorReply(request, -32000, 'insufficient funds for gas * price + value')
          : undefined;
      });
      const cancel = (await COMMANDS['treasury:cancel-nonce'](
        suite.context,
        { network: 'ETHEREUM', nonce: String(nonce) },
        [],
      )) as { broadcast: string };
      expect(cancel.broadcast).toMatch(/^rejected: /);
      await automine(true);
      const ended = await passUntilSweepEnded(address, sweepId);
      expect(ended.status).toBe('Completed');
      expect(await devnet.balanceOf('USDC', address)).toBe(0n);
      const final = await attempts(sweepId);
      const mined = final.find((row) => row.tx_hash === ended.tx_hash)!;
      expect(mined.step).toBe('batch');
      expect(final.find((row) => row.step === 'cancel')!.status).toBe('Superseded');
    },
    2 * TIMEOUT_MS,
  );

  it(
    "chains:forget waits for a sweep pass in flight, and a forgotten sweep's bytes are never sent again",
    async () => {
      await useSettings({});
      // A sweep in flight on the chain about to be forgotten.
      const address = await paid('USDC', '19');
      const { sweepId } = await stuckBatch(address);
      const [attempt] = await attempts(sweepId);
      // A pass in flight holds the network's sweep lock (TreasurySweeps.run).
      const lockKey = 'treasury.sweep:ETHEREUM';
      const inFlight = api.dataSource.createQueryRunner();
      await inFlight.connect();
      await inFlight.query(`SELECT pg_advisory_lock(hashtext($1))`, [lockKey]);
      let forgetting: Promise<unknown>;
      try {
        forgetting = COMMANDS['chains:forget'](suite.context, { network: 'ETHEREUM' }, []);
        // Proven waiting: its transaction asks for that very lock and is not granted it.
        await waitFor(
          async () =>
            (
              await api.dataSource.query(
                `SELECT count(*)::int AS waiting FROM pg_locks
                  WHERE locktype = 'advisory' AND NOT granted
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND objid = (hashtext($1)::bigint & 4294967295)::oid`,
                [lockKey],
              )
            )[0].waiting === 1,
          TIMEOUT_MS,
          'chains:forget waiting for the sweep pass',
        );
      } finally {
        await inFlight.query(`SELECT pg_advisory_unlock(hashtext($1))`, [lockKey]);
        await inFlight.release();
      }
      expect(await forgetting!).toMatchObject({ network: 'ETHEREUM' });

      expect((await sweepsOf(address))[0]).toMatchObject({ id: sweepId, status: 'Failed' });

      // A broadcaster handed the ended sweep's attempt (read before the forget) sends nothing.
      const row = (
        await api.dataSource.query(`SELECT * FROM sweep_attempts WHERE tx_hash = $1`, [
          attempt.tx_hash,
        ])
      )[0];
      const sends = () => proxy.methods.filter((method) => method === 'eth_sendRawTransaction');
      const before = sends().length;
      try {
        expect(await suite.context.get(SweepBroadcaster).broadcast('ETHEREUM', row)).toMatch(
          /^not sent/,
        );
        expect(sends().length).toBe(before);
      } finally {
        await devnet.provider.send('anvil_dropTransaction', [attempt.tx_hash]);
      }
    },
    2 * TIMEOUT_MS,
  );

  it('treasury:unfreeze starts the backoff again from zero: the address is tried at the next pass', async () => {
    const address = '0x' + 'ab'.repeat(20);
    await api.dataSource.query(
      `INSERT INTO sweep_addresses (network, currency, address, pending_since, pending_block,
                                    failures, frozen_at, unswept_in_row, unswept_at)
       VALUES ('ETHEREUM', 'USDT', $1, now(), 0, 3, now(), 3, now())`,
      [address],
    );
    expect(
      await COMMANDS['treasury:unfreeze'](
        suite.context,
        { network: 'ETHEREUM', currency: 'USDT', address },
        [],
      ),
    ).toMatchObject({ unfrozen: true });
    const [row] = await api.dataSource.query(
      `SELECT failures, frozen_at, unswept_in_row, unswept_at FROM sweep_addresses
        WHERE network = 'ETHEREUM' AND currency = 'USDT' AND address = $1`,
      [address],
    );
    expect(row).toEqual({ failures: 0, frozen_at: null, unswept_in_row: 0, unswept_at: null });
    await api.dataSource.query(
      `DELETE FROM sweep_addresses WHERE network = 'ETHEREUM' AND address = $1`,
      [address],
    );
  });

  it(
    "refuses a cancel whose L1 data fee (the OP-stack GasPriceOracle's quote) the sweeper cannot pay",
    async () => {
      await useSettings({});
      const address = await paid('USDC', '19');
      const { sweepId, nonce } = await stuckBatch(address);
      // An OP-stack GasPriceOracle quoting 1,000 ETH of L1 data fee for any transaction: far
      // more than the sweeper's 100 ETH, which covers the L2 gas many times over.
      const quote = (10n ** 21n).toString(16).padStart(64, '0');
      await devnet.provider.send('anvil_setCode', [
        GAS_PRICE_ORACLE,
        `0x7f${quote}60005260206000f3`,
      ]);
      try {
        await expect(
          COMMANDS['treasury:cancel-nonce'](
            suite.context,
            { network: 'ETHEREUM', nonce: String(nonce) },
            [],
          ),
        ).rejects.toThrow(/of L1 data fee\): fund it first/);
        expect((await attempts(sweepId)).map((row) => row.step)).toEqual(['batch']);
      } finally {
        await devnet.provider.send('anvil_setCode', [GAS_PRICE_ORACLE, '0x']);
      }
      await automine(true);
      expect((await passUntilSweepEnded(address, sweepId)).status).toBe('Completed');
    },
    2 * TIMEOUT_MS,
  );

  it('refuses a cancel of a nonce no sweep holds, and a nonce that is no number', async () => {
    await expect(
      COMMANDS['treasury:cancel-nonce'](
        suite.context,
        { network: 'ETHEREUM', nonce: '999999' },
        [],
      ),
    ).rejects.toThrow('No sweep in Processing holds nonce 999999');
    await expect(
      COMMANDS['treasury:cancel-nonce'](suite.context, { network: 'ETHEREUM', nonce: 'x' }, []),
    ).rejects.toThrow('--nonce must be a whole number');
  });
});
