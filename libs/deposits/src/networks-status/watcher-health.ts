import { WatcherStatusRecord } from './watcher-status.repository';

export const WATCHER_HEALTHS = ['operational', 'delayed', 'down', 'not_watched'] as const;
export type WatcherHealth = (typeof WATCHER_HEALTHS)[number];

/** What the hosted page tells a payer: nothing, or a calm notice (not_watched says nothing). */
export const DETECTION_STATES = ['operational', 'delayed', 'down'] as const;
export type DetectionState = (typeof DETECTION_STATES)[number];

/**
 * The thresholds of the health rules (docs/networks.md). Durations scale with the chain's block
 * time where it is known and never go below their floor (a chain of unknown pace, a devnet, uses
 * the floors alone).
 */
export const HEALTH_RULES = {
  /** No tick committed for this long: delayed. */
  delayedAfter: { floorMs: 60_000, blocks: 5 },
  /** Failing (the last tick failed) and no tick committed for this long: down. */
  downWhileFailingAfter: { floorMs: 120_000, blocks: 10 },
  /** No tick committed for this long, failing or not (no worker is running): down. */
  downAfter: { floorMs: 600_000, blocks: 50 },
  /** This many failed ticks in a row: delayed, however recent the last success. */
  delayedAfterFailures: 3,
  /** Scanned this many blocks more than the confirmations behind the head it saw: delayed. */
  lagMarginBlocks: 10,
  /**
   * The head reported unchanged for this long, on a chain of known pace: delayed. Such chains
   * never stop for minutes, so the node answering is stuck; a chain of unknown pace (a devnet
   * mining only when it is sent transactions) is left out of the rule.
   */
  headStalledAfter: { floorMs: 120_000, blocks: 20 },
} as const;

export interface HealthInput {
  /** In WATCH_NETWORKS of this deployment. */
  watched: boolean;
  /** The watcher's report, or null when it never reported on this network. */
  status: WatcherStatusRecord | null;
  confirmations: number;
  /** Average block time, or undefined for a chain of unknown pace. */
  blockTimeMs: number | undefined;
  /** The database's clock (the reports' timestamps come from it). */
  nowMs: number;
}

/** Blocks between the head the watcher saw and the block it scanned up to; null before any. */
export function lagBlocks(status: WatcherStatusRecord | null): number | null {
  if (!status || status.chainHead === null || status.scannedBlock === null) return null;
  return Math.max(status.chainHead - status.scannedBlock, 0);
}

function threshold(rule: { floorMs: number; blocks: number }, blockTimeMs?: number): number {
  return Math.max(rule.floorMs, rule.blocks * (blockTimeMs ?? 0));
}

/**
 * The health of deposit detection on one network, from the watcher's last report; the first rule
 * that holds wins (docs/networks.md, "Health"):
 * 1. not_watched: not in WATCH_NETWORKS.
 * 2. down: never a committed tick; or failing for longer than downWhileFailingAfter since the
 *    last committed one; or no committed tick for longer than downAfter.
 * 3. delayed: no committed tick for longer than delayedAfter; or delayedAfterFailures failures
 *    in a row; or a lag of more than confirmations + lagMarginBlocks; or, on a chain of known
 *    pace, the head unchanged for longer than headStalledAfter.
 * 4. operational.
 */
export function watcherHealth(input: HealthInput): WatcherHealth {
  const { status, blockTimeMs } = input;
  if (!input.watched) return 'not_watched';
  if (!status || status.lastSuccessAt === null) return 'down';
  const sinceSuccess = input.nowMs - status.lastSuccessAt.getTime();
  const failing =
    status.lastFailureAt !== null &&
    status.lastFailureAt.getTime() > status.lastSuccessAt.getTime();
  if (failing && sinceSuccess > threshold(HEALTH_RULES.downWhileFailingAfter, blockTimeMs)) {
    return 'down';
  }
  if (sinceSuccess > threshold(HEALTH_RULES.downAfter, blockTimeMs)) return 'down';
  if (sinceSuccess > threshold(HEALTH_RULES.delayedAfter, blockTimeMs)) return 'delayed';
  if (status.consecutiveFailures >= HEALTH_RULES.delayedAfterFailures) return 'delayed';
  const lag = lagBlocks(status) ?? 0;
  if (lag > input.confirmations + HEALTH_RULES.lagMarginBlocks) return 'delayed';
  if (blockTimeMs !== undefined && status.headMovedAt !== null) {
    const sinceHeadMoved = input.nowMs - status.headMovedAt.getTime();
    if (sinceHeadMoved > threshold(HEALTH_RULES.headStalledAfter, blockTimeMs)) return 'delayed';
  }
  return 'operational';
}

/**
 * The hosted page's view of it. A network this deployment does not watch is the operator's
 * configuration (visible in GET /v1/networks), not something to alarm a payer with.
 */
export function detectionStateOf(health: WatcherHealth): DetectionState {
  return health === 'not_watched' ? 'operational' : health;
}
