import { HEALTH_RULES, detectionStateOf, lagBlocks, watcherHealth } from './watcher-health';
import { WatcherStatusRecord } from './watcher-status.repository';
import { watchedNetworks } from './watched-networks';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function report(changes: Partial<WatcherStatusRecord> = {}): WatcherStatusRecord {
  return {
    network: 'ETHEREUM',
    chainHead: 1_000,
    scannedBlock: 1_000,
    lastSuccessAt: new Date(NOW - 2 * SECOND),
    headMovedAt: new Date(NOW - 10 * SECOND),
    lastFailureAt: null,
    lastError: null,
    consecutiveFailures: 0,
    ...changes,
  };
}

const ago = (milliseconds: number) => new Date(NOW - milliseconds);

/** Ethereum's pace: 12 s blocks, 12 confirmations. */
const health = (
  status: WatcherStatusRecord | null,
  changes: { watched?: boolean; blockTimeMs?: number; confirmations?: number } = {},
) =>
  watcherHealth({
    watched: changes.watched ?? true,
    status,
    confirmations: changes.confirmations ?? 12,
    blockTimeMs: 'blockTimeMs' in changes ? changes.blockTimeMs : 12 * SECOND,
    nowMs: NOW,
  });

describe('watcherHealth', () => {
  it('a caught-up watcher that just committed a tick is operational', () => {
    expect(health(report())).toBe('operational');
  });

  it('a network not in WATCH_NETWORKS is not_watched, whatever its last report', () => {
    expect(health(report(), { watched: false })).toBe('not_watched');
    expect(health(null, { watched: false })).toBe('not_watched');
  });

  it('a watched network never reported on, or only failing, is down', () => {
    expect(health(null)).toBe('down');
    expect(
      health(
        report({
          chainHead: null,
          scannedBlock: null,
          lastSuccessAt: null,
          headMovedAt: null,
          lastFailureAt: ago(SECOND),
          consecutiveFailures: 1,
        }),
      ),
    ).toBe('down');
  });

  it('no committed tick for max(1 min, 5 blocks) is delayed', () => {
    // Ethereum: 5 blocks are 60 s.
    expect(health(report({ lastSuccessAt: ago(60 * SECOND) }))).toBe('operational');
    expect(health(report({ lastSuccessAt: ago(61 * SECOND) }))).toBe('delayed');
    // A slow chain (30 s blocks): 5 blocks are 150 s, longer than the floor.
    expect(health(report({ lastSuccessAt: ago(2 * MINUTE) }), { blockTimeMs: 30 * SECOND })).toBe(
      'operational',
    );
    // A devnet of unknown pace: the floor alone.
    expect(health(report({ lastSuccessAt: ago(61 * SECOND) }), { blockTimeMs: undefined })).toBe(
      'delayed',
    );
  });

  it('a silent watcher (no worker running) is down after max(10 min, 50 blocks)', () => {
    expect(health(report({ lastSuccessAt: ago(10 * MINUTE) }))).toBe('delayed');
    expect(health(report({ lastSuccessAt: ago(10 * MINUTE + SECOND) }))).toBe('down');
  });

  it('failing since the last success: delayed at first, down after max(2 min, 10 blocks)', () => {
    const failing = (sinceSuccess: number, failures: number) =>
      report({
        lastSuccessAt: ago(sinceSuccess),
        lastFailureAt: ago(SECOND),
        lastError: 'eth_blockNumber: node unreachable (ECONNREFUSED)',
        consecutiveFailures: failures,
      });
    // One or two failures right after a success: a blip, the loop retries.
    expect(health(failing(5 * SECOND, 1))).toBe('operational');
    expect(health(failing(5 * SECOND, 2))).toBe('operational');
    expect(health(failing(5 * SECOND, 3))).toBe('delayed');
    expect(health(failing(2 * MINUTE, 4))).toBe('delayed');
    expect(health(failing(2 * MINUTE + SECOND, 4))).toBe('down');
  });

  it('an old failure followed by successes counts for nothing', () => {
    const recovered = report({
      lastFailureAt: ago(20 * MINUTE),
      lastError: 'timeout',
      consecutiveFailures: 0,
    });
    expect(health(recovered)).toBe('operational');
  });

  it('a lag beyond confirmations + 10 blocks is delayed', () => {
    const lagging = (lag: number) => report({ chainHead: 1_000, scannedBlock: 1_000 - lag });
    expect(health(lagging(12 + HEALTH_RULES.lagMarginBlocks))).toBe('operational');
    expect(health(lagging(12 + HEALTH_RULES.lagMarginBlocks + 1))).toBe('delayed');
    expect(health(lagging(500), { confirmations: 128, blockTimeMs: 2 * SECOND })).toBe('delayed');
  });

  it('a head unchanged for max(2 min, 20 blocks) on a chain of known pace is delayed', () => {
    // Ticks keep succeeding (a stuck node answers), but Ethereum never stops for 4 minutes.
    const stuckFor = (milliseconds: number) => report({ headMovedAt: ago(milliseconds) });
    expect(health(stuckFor(4 * MINUTE))).toBe('operational');
    expect(health(stuckFor(4 * MINUTE + SECOND))).toBe('delayed');
    expect(health(stuckFor(2 * MINUTE), { blockTimeMs: 3 * SECOND })).toBe('operational');
    expect(health(stuckFor(2 * MINUTE + SECOND), { blockTimeMs: 3 * SECOND })).toBe('delayed');
    // A devnet mines only when it is sent transactions: its quiet head says nothing.
    expect(health(stuckFor(60 * MINUTE), { blockTimeMs: undefined })).toBe('operational');
  });

  it('down wins over delayed, delayed over operational', () => {
    const both = report({
      lastSuccessAt: ago(3 * MINUTE),
      lastFailureAt: ago(SECOND),
      consecutiveFailures: 9,
      scannedBlock: 0,
    });
    expect(health(both)).toBe('down');
  });
});

describe('lagBlocks', () => {
  it('is the head minus the scanned block, never negative, null before any tick', () => {
    expect(lagBlocks(report({ chainHead: 120, scannedBlock: 100 }))).toBe(20);
    expect(lagBlocks(report({ chainHead: 100, scannedBlock: 120 }))).toBe(0);
    expect(lagBlocks(report({ chainHead: null, scannedBlock: null }))).toBeNull();
    expect(lagBlocks(null)).toBeNull();
  });
});

describe('detectionStateOf', () => {
  it('tells the payer of delays and outages, never of configuration', () => {
    expect(detectionStateOf('operational')).toBe('operational');
    expect(detectionStateOf('delayed')).toBe('delayed');
    expect(detectionStateOf('down')).toBe('down');
    expect(detectionStateOf('not_watched')).toBe('operational');
  });
});

describe('watchedNetworks', () => {
  it('reads WATCH_NETWORKS like the worker: all, none, or a list of known names', () => {
    expect(watchedNetworks({ watchNetworks: 'all' }).size).toBe(7);
    expect([...watchedNetworks({ watchNetworks: [] })]).toEqual([]);
    expect([...watchedNetworks({ watchNetworks: ['BSC', 'TRON', 'NOPE'] })]).toEqual([
      'TRON',
      'BSC',
    ]);
  });
});
