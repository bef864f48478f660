import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { whileAdvisoryLocked } from '@app/database';
import { EvmSweeper, SweepTickReport } from './evm-sweeper';
import { SweepKeys } from './sweep-keys';
import { SweepTrackReport, SweepTracker } from './sweep-tracker';
import { EvmTopUpSweeper } from './evm-top-up-sweeper';
import { EvmTopUpTracker } from './evm-top-up-tracker';
import { TronSweepPlanner } from './tron-sweep-planner';
import { TronSweepSteps } from './tron-sweep-steps';

export type SweepRunReport = SweepTickReport & { tracked: SweepTrackReport };

export type SweepKind = 'batch' | 'top_up' | 'tron';

/**
 * The trackers an EVM pass runs: each kind that has live sweeps on the network (a sweep is
 * followed by the tracker of the kind it was sent as, whatever the settings say now), and the
 * kind today's settings plan (its tracker also watches what the planner is about to start).
 */
export function evmTrackers(liveKinds: ReadonlySet<SweepKind>, gasTopUp: boolean): SweepKind[] {
  const kinds: SweepKind[] = [];
  if (liveKinds.has('batch') || !gasTopUp) kinds.push('batch');
  if (liveKinds.has('top_up') || gasTopUp) kinds.push('top_up');
  return kinds;
}

function sum(reports: SweepTrackReport[]): SweepTrackReport {
  return reports.reduce(
    (total, report) => ({
      completed: total.completed + report.completed,
      abandoned: total.abandoned + report.abandoned,
      replaced: total.replaced + report.replaced,
      rebroadcast: total.rebroadcast + report.rebroadcast,
    }),
    { completed: 0, abandoned: 0, replaced: 0, rebroadcast: 0 },
  );
}

/**
 * One sweep pass of a network: follow the live sweeps, then plan new ones. Passes of a network
 * never overlap, across workers and the CLI (a session-level advisory lock on one connection).
 */
@Injectable()
export class TreasurySweeps {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SweepKeys,
    private readonly tracker: SweepTracker,
    private readonly sweeper: EvmSweeper,
    private readonly networkRegistry: NetworkRegistry,
    private readonly tronSteps: TronSweepSteps,
    private readonly tronPlanner: TronSweepPlanner,
    private readonly topUpTracker: EvmTopUpTracker,
    private readonly topUpSweeper: EvmTopUpSweeper,
  ) {}

  networks(): NetworkName[] {
    return this.keys.sweepingNetworks();
  }

  async liveCount(network: NetworkName): Promise<number> {
    const [{ live }]: Array<{ live: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS live FROM sweeps WHERE network = $1 AND status = 'Processing'`,
      [network],
    );
    return live;
  }

  /** Null when another pass of the network holds the lock. */
  async run(network: NetworkName, now = new Date()): Promise<SweepRunReport | null> {
    const run = await whileAdvisoryLocked(this.dataSource, `treasury.sweep:${network}`, false, () =>
      this.pass(network, now),
    );
    return run.ran ? run.value : null;
  }

  /** The kinds of the network's live sweeps. */
  async liveKinds(network: NetworkName): Promise<Set<SweepKind>> {
    const rows: Array<{ kind: SweepKind }> = await this.dataSource.query(
      `SELECT DISTINCT kind FROM sweeps WHERE network = $1 AND status = 'Processing'`,
      [network],
    );
    return new Set(rows.map((row) => row.kind));
  }

  /**
   * Per chain family: TRON sweeps step by step; EVM: every live sweep followed by its own kind's
   * tracker (switching gasTopUp orphans nothing), new ones planned by EIP-7702 batches, or by gas
   * top-ups where the network's settings say so (its nodes refuse type-4 transactions).
   */
  private async pass(network: NetworkName, now: Date): Promise<SweepRunReport> {
    if (this.networkRegistry.get(network).chainFamily === 'TRON') {
      // The staking account is the hot wallet: nothing new is planned or lent, but live sweeps
      // go on moving tokens and taking their energy back (stake must never stay lent).
      const refused = (await this.tronPlanner.refusal(network)) !== null;
      const tracked = await this.tronSteps.track(network, !refused);
      if (refused) {
        return { network, candidates: 0, emptied: 0, sweeps: [], refused: true, tracked };
      }
      return { ...(await this.tronPlanner.plan(network, now)), tracked };
    }
    const gasTopUp = this.keys.settings.get(network)?.gasTopUp ?? false;
    const reports: SweepTrackReport[] = [];
    for (const kind of evmTrackers(await this.liveKinds(network), gasTopUp)) {
      reports.push(
        kind === 'top_up'
          ? await this.topUpTracker.track(network)
          : await this.tracker.track(network),
      );
    }
    const planned = gasTopUp
      ? await this.topUpSweeper.plan(network, now)
      : await this.sweeper.plan(network, now);
    return { ...planned, tracked: sum(reports) };
  }
}
