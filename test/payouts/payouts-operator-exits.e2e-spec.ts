import type { INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { Transaction, Wallet } from 'ethers';
import { PAYOUT_JOBS, QUEUES } from '@app/common';
import { PayoutsScheduler } from '../../apps/worker/src/payouts/payouts.scheduler';
import { useChainSuite } from '../support/chain-suite';
import { CliProcess, CliResult } from '../support/cli-process';
import { Devnet, DEVNET_ACCOUNTS } from '../support/devnet';
import { startWorker } from '../support/in-process-worker';
import { transfersFrom, writeHotWalletsFile } from '../support/payout-chain';
import { balanceOf } from '../support/payouts-api';
import { RpcInterceptor, RpcProxy, rpcErrorReply, rpcResultReply } from '../support/rpc-proxy';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const HOT_WALLET = DEVNET_ACCOUNTS.hotWallet;
const CONFIRMATIONS = 3;

/*
 * The operator's exits for a payout stuck in Processing (docs/payouts.md): payouts:cancel-nonce
 * fills the payout's nonce with a zero-value send (the payout then fails, funds released, on
 * that positive proof), also with a rotated key's --key-file; payouts:track follows a network
 * whose key was removed, which no worker tracks any more.
 */
describe('Payouts stuck in Processing: the operator exits', () => {
  const keyFileA = writeHotWalletsFile({ ETHEREUM: HOT_WALLET.privateKey });
  const walletB = Wallet.createRandom();
  const keyFileB = writeHotWalletsFile({ ETHEREUM: walletB.privateKey });
  const noEthereumKey = writeHotWalletsFile({});
  const chain = useChainSuite({
    proxy: true,
    confirmations: CONFIRMATIONS,
    environment: {
      WATCH_NETWORKS: 'none',
      HOT_WALLETS_FILE: keyFileA,
      PAYOUT_TRACK_INTERVAL_MS: '200',
      PAYOUT_RETRY_DELAY_MS: '300',
      // No replacement may blur what is tested: a stuck transfer stays as it was signed.
      PAYOUT_REPLACE_AFTER_MS: '600000',
      PAYOUT_NETWORK_FEES: 'ETHEREUM=0.5',
    },
    newChain: 'payouts',
    merchant: { usdt: '1000' },
    // The tests restart the worker: the suite closes whichever runs.
    cleanUp: async () => {
      cli?.remove();
      await worker?.close();
    },
  });
  let devnet: Devnet;
  let proxy: RpcProxy;
  let cli: CliProcess;
  let api: TestApi;
  let worker: INestApplicationContext;
  let merchant: TestMerchant;

  beforeAll(async () => {
    ({ devnet, proxy, api, merchant } = chain);
    cli = await CliProcess.build('operator-exits');
    worker = await startWorker();
  });

  afterEach(() => proxy.intercept(undefined));

  /** A worker started afresh with this HOT_WALLETS_FILE (the CLI runs take it too). */
  async function restartWorker(hotWalletsFile: string): Promise<void> {
    await worker.close();
    process.env.HOT_WALLETS_FILE = hotWalletsFile;
    worker = await startWorker();
  }

  /**
   * The node refuses for good every transfer to `recipient`, replacements included; `also`
   * answers other sends it picks.
   */
  function refuseTransfersTo(recipient: string, also?: RpcInterceptor): void {
    const needle = recipient.slice(2).toLowerCase();
    proxy.intercept((request) => {
      if (request.method !== 'eth_sendRawTransaction') return undefined;
      const transaction = Transaction.from(String(request.params?.[0]));
      return transaction.data.toLowerCase().includes(needle)
        ? rpcErrorReply(request, -32000, 'intrinsic gas too low')
        : also?.(request);
    });
  }

  async function createPayout(to: string): Promise<string> {
    const { body } = await api
      .post(
        '/v1/payouts',
        merchant,
        { amount: '10', currency: 'USDT', network: 'ETHEREUM', to_address: to },
        { 'Idempotency-Key': randomUUID() },
      )
      .expect(201);
    return body.id as string;
  }

  const payoutOf = async (id: string): Promise<{ status: string; error_reason: string | null }> =>
    (await api.get(`/v1/payouts/${id}`, merchant).expect(200)).body;

  interface AttemptRow {
    nonce: number;
    tx_hash: string;
    purpose: string;
    status: string;
    broadcast_count: number;
    last_broadcast_result: string | null;
  }

  const attemptsOf = (id: string): Promise<AttemptRow[]> =>
    api.dataSource.query(
      `SELECT nonce::int AS nonce, tx_hash, purpose, status, broadcast_count, last_broadcast_result
         FROM payout_attempts WHERE payout_id = $1 ORDER BY attempt_number`,
      [id],
    );

  /** The payout's one transfer, signed and refused by the node at least once. */
  async function refusedTransfer(id: string): Promise<AttemptRow> {
    await waitFor(
      async () =>
        (await attemptsOf(id))[0]?.last_broadcast_result?.startsWith('rejected:') ?? false,
      30_000,
      `${id}'s transfer refused`,
    );
    const [attempt] = await attemptsOf(id);
    return attempt;
  }

  /** Waits with blocks mined meanwhile (the devnet mines only on demand). */
  const waitForStatuses = (expected: Record<string, string>) =>
    waitFor(
      async () => {
        await devnet.provider.send('evm_mine', []);
        let reached = true;
        for (const [id, status] of Object.entries(expected)) {
          const now = (await payoutOf(id)).status;
          // A final status is for good: another one than expected will not change.
          if (now !== status && ['Completed', 'Failed', 'Rejected'].includes(now)) {
            throw new Error(`${id} ended ${now}, expected ${status}`);
          }
          reached &&= now === status;
        }
        return reached;
      },
      60_000,
      JSON.stringify(expected),
    );

  const sentTo = async (recipient: string) =>
    (await transfersFrom(devnet, 'USDT', HOT_WALLET.address)).filter((t) => t.to === recipient);

  const available = async () =>
    (await balanceOf(api, merchant, 'ETHEREUM', 'USDT'))?.available ?? '0';

  /** The one JSON value a successful command prints; never a key. */
  function json(result: CliResult): Record<string, unknown> {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    for (const secret of [HOT_WALLET.privateKey, walletB.privateKey]) {
      expect(result.stdout.toLowerCase()).not.toContain(secret.slice(2).toLowerCase());
    }
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  /** A refusal: exit code 2, nothing on stdout, the reason on stderr. */
  function refusal(result: CliResult): string {
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    return result.stderr.trim();
  }

  async function expectCancelOnChain(hash: string, nonce: number): Promise<void> {
    const transaction = await devnet.provider.getTransaction(hash);
    expect(transaction).toMatchObject({
      from: HOT_WALLET.address,
      to: HOT_WALLET.address,
      value: 0n,
      data: '0x',
      gasLimit: 21_000n,
      nonce,
    });
  }

  it('cancel-nonce fills the nonce of a transaction refused for good: that payout fails, funds back, and the one behind it is paid once', async () => {
    const before = await available();
    const doomed = Wallet.createRandom().address;
    const behind = Wallet.createRandom().address;
    refuseTransfersTo(doomed);
    const first = await createPayout(doomed);
    const refused = await refusedTransfer(first);
    const second = await createPayout(behind);
    await waitFor(
      async () => (await attemptsOf(second))[0]?.broadcast_count > 0,
      30_000,
      'the later payout broadcast',
    );
    expect((await attemptsOf(second))[0].nonce).toBe(refused.nonce + 1);
    // Every later nonce waits behind the refused one.
    await devnet.provider.send('anvil_mine', ['0x5']);
    expect(await sentTo(behind)).toHaveLength(0);
    expect((await payoutOf(second)).status).toBe('Processing');

    const cancelled = json(
      await cli.run('payouts:cancel-nonce', '--network', 'ETHEREUM', '--nonce', `${refused.nonce}`),
    );
    expect(cancelled).toEqual({
      payout_id: first,
      network: 'ETHEREUM',
      nonce: refused.nonce,
      wallet_address: HOT_WALLET.address,
      cancel_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      replaces: [refused.tx_hash],
      max_fee_per_gas_gwei: expect.any(String),
      max_priority_fee_per_gas_gwei: expect.any(String),
      // The worker's tracker may send the stored cancel first (it re-sends what was never sent).
      broadcast: expect.stringMatching(/^(accepted|already_known|nonce_too_low)$/),
    });
    const cancelHash = cancelled.cancel_tx_hash as string;
    expect((await attemptsOf(first)).map((a) => [a.purpose, a.tx_hash])).toEqual([
      ['transfer', refused.tx_hash],
      ['cancel', cancelHash],
    ]);
    await expectCancelOnChain(cancelHash, refused.nonce);

    await waitForStatuses({ [first]: 'Failed', [second]: 'Completed' });
    expect((await payoutOf(first)).error_reason).toBe(
      `Cancelled by an operator: nonce ${refused.nonce} was used by a zero-value transaction ` +
        `${cancelHash}; nothing was sent.`,
    );
    expect(await sentTo(doomed)).toHaveLength(0);
    expect(await sentTo(behind)).toHaveLength(1);
    // The failed payout's 10 came back; the completed one's 10 left.
    expect(new Decimal(await available()).eq(new Decimal(before).minus(10))).toBe(true);
  });

  it('cancel-nonce signs with a rotated key given by --key-file, and says so without it', async () => {
    const before = await available();
    const doomed = Wallet.createRandom().address;
    refuseTransfersTo(doomed);
    const id = await createPayout(doomed);
    const refused = await refusedTransfer(id);
    // The key is rotated: the worker (and the CLI) now hold B's key only.
    await restartWorker(keyFileB);

    const args = ['payouts:cancel-nonce', '--network', 'ETHEREUM', '--nonce', `${refused.nonce}`];
    expect(refusal(await cli.run(...args))).toBe(
      `Payout ${id}'s transactions are from ${HOT_WALLET.address}, and HOT_WALLETS_FILE holds ` +
        `the key of ${walletB.address} (rotated since?): give ${HOT_WALLET.address}'s key with ` +
        '--key-file PATH (a JSON file like HOT_WALLETS_FILE: {"ETHEREUM": {"privateKey": "0x..."}}).',
    );
    expect(refusal(await cli.run(...args, '--key-file', keyFileB))).toBe(
      `The --key-file key of ETHEREUM is of ${walletB.address}, but payout ${id}'s transactions ` +
        `are from ${HOT_WALLET.address}: give that wallet's key.`,
    );
    expect((await attemptsOf(id)).map((a) => a.purpose)).toEqual(['transfer']);

    // The node says it took the cancel and drops it: the tracker re-sends its stored bytes (the
    // worker holds B's key only, and needs none for that).
    let swallowed: string | undefined;
    refuseTransfersTo(doomed, (request) => {
      if (swallowed) return undefined;
      const transaction = Transaction.from(String(request.params?.[0]));
      if (transaction.to !== HOT_WALLET.address) return undefined;
      swallowed = transaction.hash as string;
      return rpcResultReply(request, swallowed);
    });
    const cancelled = json(await cli.run(...args, '--key-file', keyFileA));
    expect(cancelled).toMatchObject({
      payout_id: id,
      wallet_address: HOT_WALLET.address,
      cancel_tx_hash: swallowed,
      broadcast: 'accepted',
    });
    await waitForStatuses({ [id]: 'Failed' });
    await expectCancelOnChain(cancelled.cancel_tx_hash as string, refused.nonce);
    const cancel = (await attemptsOf(id)).find((attempt) => attempt.purpose === 'cancel');
    expect(cancel?.broadcast_count).toBeGreaterThanOrEqual(2);
    expect((await payoutOf(id)).error_reason).toMatch(/^Cancelled by an operator: nonce \d+ /);
    expect(await sentTo(doomed)).toHaveLength(0);
    expect(new Decimal(await available()).eq(before)).toBe(true);
  });

  it('payouts:track completes a mined payout of a network whose key was removed', async () => {
    await restartWorker(keyFileA);
    const recipient = Wallet.createRandom().address;
    const id = await createPayout(recipient);
    // Mined in its own block: one confirmation of the three needed.
    await waitFor(async () => (await sentTo(recipient)).length === 1, 30_000, 'the transfer');
    expect((await payoutOf(id)).status).toBe('Processing');

    // The key is removed: the restarted worker no longer tracks ETHEREUM.
    await restartWorker(noEthereumKey);
    const queue = worker.get<Queue>(getQueueToken(QUEUES.payouts));
    await waitFor(
      async () => {
        // A tracker job running while its schedule is removed adds its next run again.
        await worker.get(PayoutsScheduler).schedule();
        const schedules = await queue.getRepeatableJobs();
        const jobs = await queue.getJobs(['waiting', 'active', 'delayed']);
        return (
          !schedules.some((schedule) => schedule.key.includes('track:ETHEREUM')) &&
          !jobs.some((job) => job?.name === PAYOUT_JOBS.track)
        );
      },
      30_000,
      'no tracker of ETHEREUM scheduled',
    );
    await devnet.provider.send('anvil_mine', [`0x${CONFIRMATIONS.toString(16)}`]);
    expect((await payoutOf(id)).status).toBe('Processing');

    const tracked = json(
      await cli.run('payouts:track', '--network', 'ETHEREUM', '--until-idle', '--seconds', '40'),
    );
    expect(tracked).toMatchObject({
      network: 'ETHEREUM',
      completed: 1,
      failed: 0,
      resigned: 0,
      replaced: 0,
      in_flight: 0,
      idle: true,
    });
    expect((await payoutOf(id)).status).toBe('Completed');
    expect(await sentTo(recipient)).toHaveLength(1);
  });
});
