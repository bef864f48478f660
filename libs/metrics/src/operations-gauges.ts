import { Inject, Injectable, Logger } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { CHAIN_FAMILIES, NetworkName, NetworkRegistry } from '@app/chains';
import { PayAddressPool } from '@app/checkout';
import { blockTimeMs, lagBlocks, WATCHER_HEALTHS, watcherHealth } from '@app/deposits';
import { watchedNetworks } from '@app/deposits/networks-status/watched-networks';
import { APP_CONFIG, AppConfig, queueKeyPrefix } from '@app/common';
import { METRIC_PREFIX, METRICS_REGISTRY } from './metrics-registry';
import { DatabaseSnapshot, OperationsSnapshotRepository } from './operations-snapshot.repository';
import { readQueueDepths } from './queue-depths';
import { RedisProbe } from './redis-probe';

// Scrapes closer together than this share one read: Prometheus, a dashboard and a curl at once
// cost the database one round trip.
export const GAUGES_MAX_AGE_MS = 5_000;
// A scrape must answer even when a dependency hangs; the gauges of that source then go missing.
const SOURCE_TIMEOUT_MS = 2_000;

type Source = 'database' | 'redis';

/**
 * Gauges of the deployment's state (queues, webhook backlog, deposit watcher, pay-address pool,
 * open payouts), read from PostgreSQL and Redis when scraped, at most every GAUGES_MAX_AGE_MS.
 * The same numbers from every process: aggregate them with max, not sum.
 */
@Injectable()
export class OperationsGauges {
  private readonly logger = new Logger(OperationsGauges.name);
  private readonly gauges: ReturnType<typeof createGauges>;
  private refreshedAt = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    @Inject(METRICS_REGISTRY) registry: Registry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly snapshots: OperationsSnapshotRepository,
    private readonly redis: RedisProbe,
    private readonly networks: NetworkRegistry,
    private readonly pool: PayAddressPool,
  ) {
    this.gauges = createGauges(registry);
  }

  /** Brings the gauges up to date unless they are fresh enough; never throws. */
  async refresh(): Promise<void> {
    if (Date.now() - this.refreshedAt < GAUGES_MAX_AGE_MS) return;
    this.refreshing ??= this.readAll().finally(() => {
      this.refreshedAt = Date.now();
      this.refreshing = null;
    });
    await this.refreshing;
  }

  private async readAll(): Promise<void> {
    const { gauges } = this;
    const fromDatabase = [gauges.deliveriesDue, gauges.oldestDueSeconds, gauges.openPayouts]
      .concat([gauges.poolAvailable, gauges.lag, gauges.sinceSuccess, gauges.failures])
      .concat([gauges.health]);
    await Promise.all([
      this.readSource(
        'database',
        async () => this.setDatabaseGauges(await this.readDatabase()),
        fromDatabase,
      ),
      this.readSource(
        'redis',
        async () => {
          const depths = await readQueueDepths(this.redis, queueKeyPrefix(this.config));
          gauges.queueJobs.reset();
          for (const { queue, state, count } of depths)
            gauges.queueJobs.set({ queue, state }, count);
        },
        [gauges.queueJobs],
      ),
    ]);
  }

  /** Reads one source; when it fails its gauges go missing rather than show stale numbers. */
  private async readSource(source: Source, read: () => Promise<void>, own: Gauge[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer in time')), SOURCE_TIMEOUT_MS);
        }),
      ]);
      this.gauges.sourceUp.set({ source }, 1);
    } catch (error) {
      for (const gauge of own) gauge.reset();
      this.gauges.sourceUp.set({ source }, 0);
      this.logger.warn({ source, reason: (error as Error).message }, 'Gauges not refreshed');
    } finally {
      clearTimeout(timer);
    }
  }

  private readDatabase(): Promise<DatabaseSnapshot> {
    const poolKeys = CHAIN_FAMILIES.map((family) => ({
      family,
      fingerprint: this.pool.fingerprintOf(family),
    }));
    return this.snapshots.read(poolKeys);
  }

  private setDatabaseGauges(snapshot: DatabaseSnapshot): void {
    const { gauges } = this;
    gauges.deliveriesDue.set(snapshot.deliveriesDue);
    gauges.oldestDueSeconds.set(snapshot.oldestDueSeconds ?? 0);
    gauges.openPayouts.reset();
    for (const { network, status, count } of snapshot.openPayouts) {
      gauges.openPayouts.set({ network, status }, count);
    }
    gauges.poolAvailable.reset();
    for (const { family, count } of snapshot.poolAvailable) {
      gauges.poolAvailable.set({ chain_family: family }, count);
    }
    this.setWatcherGauges(snapshot);
  }

  /** One series per watched network: a network nobody watches has no lag to report. */
  private setWatcherGauges(snapshot: DatabaseSnapshot): void {
    const { gauges } = this;
    for (const gauge of [gauges.lag, gauges.sinceSuccess, gauges.failures, gauges.health]) {
      gauge.reset();
    }
    const statuses = new Map(snapshot.watchers.map((status) => [status.network, status]));
    for (const name of watchedNetworks(this.config)) {
      const network = this.networks.get(name as NetworkName);
      const status = statuses.get(name) ?? null;
      const health = watcherHealth({
        watched: true,
        status,
        confirmations: network.confirmations,
        blockTimeMs: blockTimeMs(network),
        nowMs: snapshot.nowMs,
      });
      for (const state of WATCHER_HEALTHS) {
        gauges.health.set({ network: name, health: state }, state === health ? 1 : 0);
      }
      const lag = lagBlocks(status);
      if (lag !== null) gauges.lag.set({ network: name }, lag);
      if (status?.lastSuccessAt) {
        gauges.sinceSuccess.set(
          { network: name },
          (snapshot.nowMs - status.lastSuccessAt.getTime()) / 1000,
        );
      }
      gauges.failures.set({ network: name }, status?.consecutiveFailures ?? 0);
    }
  }
}

function createGauges(registry: Registry) {
  const gauge = <T extends string>(name: string, help: string, labelNames: T[] = []) =>
    new Gauge<T>({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry] });
  return {
    sourceUp: gauge(
      'metrics_source_up',
      'Whether the last read of a source of these gauges (database, redis) succeeded.',
      ['source'],
    ),
    queueJobs: gauge('queue_jobs', 'Jobs in a Bull queue, by state.', ['queue', 'state']),
    deliveriesDue: gauge(
      'webhook_deliveries_due',
      'Webhook deliveries due now and not in flight (counted up to 1,000,000).',
    ),
    oldestDueSeconds: gauge(
      'webhook_oldest_due_seconds',
      'How long the oldest due webhook delivery has been waiting; 0 when none is due.',
    ),
    openPayouts: gauge(
      'payouts_open',
      'Payouts not finished yet, by network and status (Pending, Processing).',
      ['network', 'status'],
    ),
    poolAvailable: gauge(
      'pay_address_pool_available',
      'Pre-derived pay addresses of the current key not claimed yet (counted up to 1,000,000).',
      ['chain_family'],
    ),
    lag: gauge(
      'deposit_watcher_lag_blocks',
      'Blocks between the chain head the deposit watcher saw and the block it scanned up to.',
      ['network'],
    ),
    sinceSuccess: gauge(
      'deposit_watcher_last_success_age_seconds',
      "Seconds since the deposit watcher's last committed scan of a network.",
      ['network'],
    ),
    failures: gauge(
      'deposit_watcher_consecutive_failures',
      'Failed scans of a network since the last committed one.',
      ['network'],
    ),
    health: gauge(
      'deposit_watcher_health',
      'Health of deposit detection per network (1 for the current state), as GET /v1/networks.',
      ['network', 'health'],
    ),
  };
}
