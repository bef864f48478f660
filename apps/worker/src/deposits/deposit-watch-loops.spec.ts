import {
  ChainAdapters,
  ChainError,
  HeadListener,
  HeadSubscription,
  MAINNET_NETWORKS,
  NetworkRegistry,
  NotYetError,
} from '@app/chains';
import { DepositWatcherService, ScanReport } from '@app/deposits';
import { AppConfig } from '@app/common';
import { DepositWatchLoops } from './deposit-watch-loops';

const POLL_MS = 60_000;

/** Lets every pending promise callback and timer of zero delay run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function until(check: () => boolean): Promise<void> {
  while (!check()) await settle();
}

describe('DepositWatchLoops', () => {
  let onHead: HeadListener | undefined;
  let scans: number;
  let closed: boolean;
  let loops: DepositWatchLoops;
  let tickRunning: (() => void) | undefined;
  /** What the watcher's ticks throw, if anything. */
  let failWith: Error | undefined;

  beforeEach(async () => {
    // Timers never fire: a second scan can only come from a head announcement, not from the poll.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    onHead = undefined;
    scans = 0;
    closed = false;
    tickRunning = undefined;
    failWith = undefined;
    const watcher = {
      scan: async (network: 'ETHEREUM'): Promise<ScanReport> => {
        scans += 1;
        // A test may hold a tick open to announce a head while it runs.
        if (tickRunning === undefined) {
          await new Promise<void>((resolve) => (tickRunning = resolve));
        }
        if (failWith) throw failWith;
        return {
          network,
          skipped: true,
          idle: true,
          waiting: false,
          head: 7,
          cursor: 7,
          reorgDepth: 0,
          detected: 0,
          confirmed: 0,
          reverted: 0,
          unmatched: 0,
        };
      },
    } as unknown as DepositWatcherService;
    const subscription: HeadSubscription = {
      close: async () => {
        closed = true;
      },
    };
    const adapters = {
      adapterFor: () => ({
        followHeads: (listener: HeadListener) => {
          onHead = listener;
          return subscription;
        },
      }),
    } as unknown as ChainAdapters;
    const networks = { get: () => MAINNET_NETWORKS.ETHEREUM } as unknown as NetworkRegistry;
    const config = { watchNetworks: ['ETHEREUM'], depositScanIntervalMs: POLL_MS } as AppConfig;
    loops = new DepositWatchLoops(watcher, networks, adapters, config);
    await loops.onApplicationBootstrap();
  });

  afterEach(async () => {
    tickRunning?.();
    await loops.onModuleDestroy();
    jest.useRealTimers();
  });

  it('scans at once when the subscription announces a head, without waiting for the poll', async () => {
    await until(() => tickRunning !== undefined);
    tickRunning?.();
    expect(onHead).toBeDefined();
    // The first tick is done and the loop waits out its poll interval.
    await settle();
    expect(scans).toBe(1);
    onHead?.(8);
    await until(() => scans === 2);
  });

  it('scans again at once when a head was announced while a tick ran', async () => {
    await until(() => tickRunning !== undefined);
    onHead?.(8);
    tickRunning?.();
    await until(() => scans === 2);
  });

  it('waits the poll interval, not a backoff, after a node that lacked a block (not yet)', async () => {
    failWith = new NotYetError('the node has no block 9 yet', 'ETHEREUM');
    await until(() => tickRunning !== undefined);
    tickRunning?.();
    await settle();
    expect(scans).toBe(1);
    // The poll's wait, which a new head ends; a backoff would not (bounded: fake timers).
    onHead?.(8);
    for (let round = 0; round < 20 && scans < 2; round += 1) await settle();
    expect(scans).toBe(2);
  });

  it('backs off after a failure: a new head does not cut the wait short', async () => {
    failWith = new ChainError('transient', 'node unreachable', 'ETHEREUM');
    await until(() => tickRunning !== undefined);
    tickRunning?.();
    await settle();
    onHead?.(8);
    for (let round = 0; round < 20; round += 1) await settle();
    expect(scans).toBe(1);
  });

  it('closes the subscription when the module stops', async () => {
    await until(() => tickRunning !== undefined);
    tickRunning?.();
    await loops.onModuleDestroy();
    expect(closed).toBe(true);
  });
});
