import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { useChainEnvironment } from '../support/chain-test-env';
import { DEVNET_ACCOUNTS, startDevnet } from '../support/devnet';
import { creditBalance } from '../support/ledger-credit';
import { writeHotWalletsFile } from '../support/payout-chain';
import {
  balanceOf,
  cleanUpPayouts,
  OFFSET_TIMESTAMP,
  PAYOUTS,
  postPayout,
  randomTronAddress,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
// This run's own build of the CLI (dist/ is git-ignored), removed at the end.
const BUILD = join(ROOT, 'dist', `cli-e2e-${process.pid}`);
const CLI_TIMEOUT_MS = 60_000;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: CLI_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Compiles the CLI the way `npm run build` does (tsc, then the @app/* aliases resolved at run time),
 * without type checking: that is `npx tsc`'s job, and a type error elsewhere in the tree must not
 * stop these tests. A fresh build, not dist/apps/cli: a build left from earlier would test old code.
 */
async function buildCli(): Promise<void> {
  const result = await run([
    require.resolve('typescript/bin/tsc'),
    ...['-p', 'apps/cli/tsconfig.app.json', '--noCheck', '--sourceMap', 'false'],
    ...['--outDir', BUILD],
  ]);
  if (result.code !== 0) throw new Error(`CLI build failed: ${result.stdout}${result.stderr}`);
}

/** Runs the built operator CLI as its own process, on this run's test database and Redis. */
function cli(...args: string[]): Promise<CliResult> {
  return run(['-r', 'tsconfig-paths/register', join(BUILD, 'apps/cli/src/main.js'), ...args], {
    TS_NODE_BASEURL: BUILD,
    LOG_LEVEL: 'silent',
  });
}

/** The one JSON value a successful command prints. */
function json(result: CliResult): unknown {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

/** A refusal: exit code 2, nothing on stdout, the reason on stderr. */
function refusal(result: CliResult): string {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
  return result.stderr.trim();
}

describe('Operator CLI: payouts', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let awaiting: { id: string };
  let toReject: { id: string };

  beforeAll(async () => {
    await buildCli();
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'CLI Payouts' });
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
  });

  afterAll(async () => {
    rmSync(BUILD, { recursive: true, force: true });
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it(
    'merchants:set-payout-policy sets the percent fee and the review of new destinations',
    async () => {
      const set = await cli(
        'merchants:set-payout-policy',
        '--merchant',
        merchant.id,
        '--fee-percent',
        '0.25',
        '--review-new-destinations',
        'true',
      );
      expect(json(set)).toEqual({
        merchant_id: merchant.id,
        payout_fee_percent: '0.25',
        review_new_destinations: true,
      });
      const [row] = await api.dataSource.query(
        `SELECT trim_scale(payout_fee_percent)::text AS percent, review_new_destinations AS review
           FROM merchants WHERE id = $1`,
        [merchant.id],
      );
      expect(row).toEqual({ percent: '0.25', review: true });
      const body = { amount: '100', currency: 'USDT', network: 'TRON' };
      awaiting = (await postPayout(api, merchant, { ...body, to_address: randomTronAddress() }))
        .body;
      toReject = (await postPayout(api, merchant, { ...body, to_address: randomTronAddress() }))
        .body;
      // 1 (TRON) + 0.25 % of 100
      expect(awaiting).toMatchObject({ fee: '1.25', pending_reason: 'review_new_destination' });
      expect(toReject).toMatchObject({ pending_reason: 'review_new_destination' });
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'payouts:list shows Pending payouts by default, and the statuses asked for',
    async () => {
      const [pending, rejectedOrFailed, badStatus] = await Promise.all([
        cli('payouts:list'),
        cli('payouts:list', '--status', 'Rejected,Failed', '--status', 'Completed'),
        cli('payouts:list', '--status', 'Done'),
      ]);
      const listed = json(pending) as Array<{ id: string; status: string }>;
      const { body: read } = await api.get(`${PAYOUTS}/${awaiting.id}`, merchant).expect(200);
      expect(listed.find((payout) => payout.id === awaiting.id)).toEqual(read);
      expect(listed.every((payout) => payout.status === 'Pending')).toBe(true);
      const finished = json(rejectedOrFailed) as Array<{ id: string; status: string }>;
      expect(finished.map((payout) => payout.id)).not.toContain(awaiting.id);
      expect(
        finished.every((payout) => ['Rejected', 'Failed', 'Completed'].includes(payout.status)),
      ).toBe(true);
      expect(refusal(badStatus)).toMatch(
        /^--status must be one of Pending, Processing, Completed, Failed, Rejected\.\n\nUsage:/,
      );
    },
    CLI_TIMEOUT_MS * 2,
  );

  it(
    'payouts:approve approves once, then says why it cannot again',
    async () => {
      const approved = json(await cli('payouts:approve', awaiting.id, '--by', 'alice'));
      expect(approved).toEqual({
        ...awaiting,
        pending_reason: null,
        reviewed_by: 'alice',
        reviewed_at: expect.stringMatching(OFFSET_TIMESTAMP),
      });
      const { body: read } = await api.get(`${PAYOUTS}/${awaiting.id}`, merchant).expect(200);
      expect(read).toEqual(approved);
      const [again, unknown, noId, noReviewer] = await Promise.all([
        cli('payouts:approve', awaiting.id, '--by', 'bob'),
        cli('payouts:approve', 'po_0000000000000000000000', '--by', 'bob'),
        cli('payouts:approve', '--by', 'bob'),
        cli('payouts:approve', awaiting.id),
      ]);
      // A refused review action prints its reason alone; a usage error adds the usage text.
      expect(refusal(again)).toBe(
        `Cannot approve payout ${awaiting.id}: it is already approved by alice.`,
      );
      expect(refusal(unknown)).toBe('No payout po_0000000000000000000000.');
      expect(refusal(noId)).toMatch(/^Give exactly one payout id\.\n\nUsage:/);
      expect(refusal(noReviewer)).toMatch(/^--by is required\.\n\nUsage:/);
    },
    CLI_TIMEOUT_MS * 2,
  );

  it(
    'payouts:reject rejects with the reason, releases the funds, and refuses a second time',
    async () => {
      const before = await balanceOf(api, merchant, 'TRON', 'USDT');
      const rejected = json(
        await cli('payouts:reject', toReject.id, '--by', 'carol', '--reason', 'wrong address'),
      );
      expect(rejected).toEqual({
        ...toReject,
        status: 'Rejected',
        pending_reason: null,
        error_reason: 'Rejected at review: wrong address',
        reviewed_by: 'carol',
        reviewed_at: expect.stringMatching(OFFSET_TIMESTAMP),
      });
      expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual({
        available: new Decimal(before!.available).plus(100).toFixed(),
        held: new Decimal(before!.held).minus(100).toFixed(),
      });
      const [again, noReason] = await Promise.all([
        cli('payouts:reject', toReject.id, '--by', 'dave', '--reason', 'again'),
        cli('payouts:reject', awaiting.id, '--by', 'dave'),
      ]);
      expect(refusal(again)).toBe(`Cannot reject payout ${toReject.id}: it is Rejected.`);
      expect(refusal(noReason)).toMatch(/^--reason is required\.\n\nUsage:/);
    },
    CLI_TIMEOUT_MS * 2,
  );

  it(
    'refuses bad options and stray arguments with exit code 2',
    async () => {
      const [percent, review, unknownMerchant, stray] = await Promise.all([
        cli('merchants:set-payout-policy', '--merchant', merchant.id, '--fee-percent', '100'),
        cli(
          'merchants:set-payout-policy',
          '--merchant',
          merchant.id,
          '--review-new-destinations',
          'yes',
        ),
        cli('merchants:set-payout-policy', '--merchant', 'mer_nobody'),
        cli('merchants:list', 'extra'),
      ]);
      expect(refusal(percent)).toMatch(/^--fee-percent must be a decimal such as "1\.5"\./);
      expect(refusal(review)).toMatch(/^--review-new-destinations must be true or false\./);
      expect(refusal(unknownMerchant)).toMatch(/^No merchant mer_nobody\./);
      expect(refusal(stray)).toMatch(/^Unexpected argument extra\./);
      // None of them changed the policy.
      const [row] = await api.dataSource.query(
        `SELECT trim_scale(payout_fee_percent)::text AS percent, review_new_destinations AS review
           FROM merchants WHERE id = $1`,
        [merchant.id],
      );
      expect(row).toEqual({ percent: '0.25', review: true });
    },
    CLI_TIMEOUT_MS * 2,
  );

  it(
    'wallets:status shows each hot wallet read from the chain, never its key',
    async () => {
      const devnet = await startDevnet();
      try {
        // Only the file is wanted: this process keeps its environment, the CLI gets the path.
        const chain = useChainEnvironment(devnet.networksFileJson());
        chain.restore();
        const networksFile = chain.path;
        const hotWalletsFile = writeHotWalletsFile({
          ETHEREUM: DEVNET_ACCOUNTS.hotWallet.privateKey,
        });
        // Without HOT_WALLETS_FILE there is no hot wallet to show.
        expect(json(await cli('wallets:status'))).toEqual([]);
        const status = await run(
          ['-r', 'tsconfig-paths/register', join(BUILD, 'apps/cli/src/main.js'), 'wallets:status'],
          {
            TS_NODE_BASEURL: BUILD,
            LOG_LEVEL: 'silent',
            NETWORKS_FILE: networksFile,
            HOT_WALLETS_FILE: hotWalletsFile,
          },
        );
        const [view] = json(status) as Array<{ next_nonce: number | null }>;
        // Null until this wallet's first payout; other suites may have sent some.
        expect(view.next_nonce === null || Number.isInteger(view.next_nonce)).toBe(true);
        expect([view]).toEqual([
          {
            network: 'ETHEREUM',
            address: DEVNET_ACCOUNTS.hotWallet.address,
            tokens: { USDT: '1000000.0', USDC: '1000000.0' },
            native: expect.stringMatching(/^\d+\.\d+$/),
            next_nonce: view.next_nonce,
            payouts_in_flight: expect.any(Number),
            payouts_waiting: expect.any(Number),
            error: null,
          },
        ]);
        const secret = DEVNET_ACCOUNTS.hotWallet.privateKey.slice(2);
        expect(status.stdout + status.stderr).not.toContain(secret);
      } finally {
        await devnet.stop();
      }
    },
    CLI_TIMEOUT_MS * 2,
  );
});
