import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import {
  ChainAdapters,
  ChainError,
  HeadSubscription,
  NETWORK_NAMES,
  NetworkName,
  NetworkRegistry,
  NotYetError,
} from '@app/chains';
import { DepositWatcherService, pollIntervalMs } from '@app/deposits';
import { APP_CONFIG, AppConfig, inSpan } from '@app/common';

// After failures the loop backs off, up to this long: an RPC outage is not worth a log line
// every 250 ms, and detection resumes within this long of the RPC coming back.
const MAX_BACKOFF_MS = 10_000;
// Ticks in a row that found the node lacking what they needed before it is worth a warning: one
// is a lagging backend of a load-balanced URL, this many in a row is a URL (or a chain) behind.
const NOT_YET_WARNING_AFTER = 40;

/**
 * One loop per watched network (WATCH_NETWORKS), in this process, each following its chain's
 * head at its own pace (see pollIntervalMs): a network whose RPC hangs or fails delays no other,
 * and detection needs neither Redis nor a queue. Several workers may run the same loops; the
 * watcher's compare-and-set makes each tick count once. Where the network has a `wsUrl`, a
 * `newHeads` subscription wakes its loop as a block arrives (no poll interval to wait out); the
 * poll goes on beside it, so a dropped subscription only costs that wait.
 */
@Injectable()
export class DepositWatchLoops implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DepositWatchLoops.name);
  private readonly loops: Promise<void>[] = [];
  private readonly wakeUps = new Set<() => void>();
  /** Per network: how to end its loop's current wait, while it waits. */
  private readonly waiting = new Map<NetworkName, () => void>();
  /** Networks that announced a head their loop has not scanned for yet. */
  private readonly headsAnnounced = new Set<NetworkName>();
  private readonly subscriptions: HeadSubscription[] = [];
  private stopping = false;

  constructor(
    private readonly watcher: DepositWatcherService,
    private readonly networks: NetworkRegistry,
    private readonly adapters: ChainAdapters,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  watchedNetworks(): NetworkName[] {
    if (this.config.watchNetworks === 'all') return [...NETWORK_NAMES];
    for (const name of this.config.watchNetworks) {
      if (!NETWORK_NAMES.includes(name as NetworkName)) {
        throw new Error(
          `WATCH_NETWORKS: unknown network ${name}; use ${NETWORK_NAMES.join(', ')}.`,
        );
      }
    }
    return this.config.watchNetworks as NetworkName[];
  }

  async onApplicationBootstrap(): Promise<void> {
    const networks = this.watchedNetworks();
    const intervals: Record<string, number> = {};
    for (const name of networks) {
      const interval = pollIntervalMs(this.networks.get(name), this.config.depositScanIntervalMs);
      intervals[name] = interval;
      const subscription = this.subscribeToHeads(name);
      if (subscription) this.subscriptions.push(subscription);
      this.loops.push(this.follow(name, interval));
    }
    this.logger.log(
      { pollIntervalsMs: intervals, subscribed: this.subscriptions.length },
      'Deposit watching started',
    );
  }

  /** Ends every loop after its current tick (a tick commits whole or not at all). */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.subscriptions.map((subscription) => subscription.close()));
    for (const wakeUp of this.wakeUps) wakeUp();
    await Promise.all(this.loops);
  }

  private subscribeToHeads(network: NetworkName): HeadSubscription | null {
    return this.adapters.adapterFor(network).followHeads(
      () => {
        this.headsAnnounced.add(network);
        this.waiting.get(network)?.();
      },
      (reason, failures) => {
        // A warning only at the first failure: polling goes on, detection is merely slower.
        const log = { network, reason, failures };
        if (failures === 1) this.logger.warn(log, 'Head subscription lost; polling meanwhile');
        else this.logger.debug(log, 'Head subscription still down');
      },
    );
  }

  /**
   * Polls every `intervalMs`, counted from the start of the previous poll: a tick that took
   * longer than the interval is followed by the next poll at once, not a full interval later.
   * A tick that committed work (transfers detected, confirmed or reverted) is followed by one
   * at once as well: a burst of blocks is usually still arriving (the next poll only asks for the
   * head, one cheap call, when it has not moved).
   */
  private async follow(network: NetworkName, intervalMs: number): Promise<void> {
    let sinceHead: number | undefined;
    let failures = 0;
    let notYet = 0;
    while (!this.stopping) {
      const startedAt = Date.now();
      this.headsAnnounced.delete(network);
      let again = false;
      try {
        // A tick is one trace (tracing on): its RPC calls, and the events it writes, which
        // their webhook deliveries continue (docs/operations.md, "Traces").
        const report = await inSpan('deposits.scan', { 'chain.network': network }, () =>
          this.watcher.scan(network, sinceHead),
        );
        // Caught up (by this worker or another): nothing to do until the head moves again.
        sinceHead = report.cursor >= report.head ? report.head : undefined;
        // A tick that committed but stopped short of the head (a backlog) goes on at once; one
        // that stopped at blocks the node lacked (waiting) asks again after the interval.
        again =
          !report.skipped &&
          ((report.cursor < report.head && !report.waiting) ||
            report.detected + report.confirmed + report.reverted > 0);
        failures = 0;
        notYet = 0;
      } catch (error) {
        if (error instanceof NotYetError) {
          // An absence, not a failure: the next poll asks again, with no backoff (a lagging
          // backend answers every other call behind a load balancer). sinceHead stays: a head
          // back at it is idle.
          notYet += 1;
          this.logNotYet(network, error, notYet);
        } else {
          sinceHead = undefined;
          failures += 1;
          this.logFailure(network, error, failures);
        }
      }
      if (again) continue;
      if (failures) {
        const backoff = Math.min(intervalMs * 2 ** Math.min(failures, 10), MAX_BACKOFF_MS);
        await this.sleep(Math.max(backoff, intervalMs));
      } else if (!this.headsAnnounced.has(network)) {
        const left = intervalMs - (Date.now() - startedAt);
        if (left > 0) await this.sleep(left, network);
      }
    }
  }

  private logNotYet(network: NetworkName, error: NotYetError, times: number): void {
    const log = { network, reason: error.message, times };
    if (times === NOT_YET_WARNING_AFTER) this.logger.warn(log, 'The RPC keeps lacking blocks');
    else this.logger.debug(log, 'The RPC lacks a block yet; asking again');
  }

  private logFailure(network: NetworkName, error: unknown, failures: number): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ChainError && error.transient) {
      this.logger.warn({ network, reason, failures }, 'RPC unavailable; retrying');
    } else {
      this.logger.error({ network, reason, failures }, 'Deposit scan failed; retrying');
    }
  }

  /** Waits `ms`, or less when stopping or, given a network, when it announces a new head. */
  private sleep(ms: number, network?: NetworkName): Promise<void> {
    // A tick that ended after onModuleDestroy woke the sleepers must not wait out its interval.
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wakeUp = () => {
        clearTimeout(timer);
        this.wakeUps.delete(wakeUp);
        if (network && this.waiting.get(network) === wakeUp) this.waiting.delete(network);
        resolve();
      };
      const timer = setTimeout(wakeUp, ms);
      this.wakeUps.add(wakeUp);
      if (network) this.waiting.set(network, wakeUp);
    });
  }
}
