import { readFileSync } from 'node:fs';
import { postgresCpuMs } from '../deposits/cpu';
import { cpuSnapshot as snapshotOf, CpuSnapshot } from '../payouts/cpu';
import { DATABASE } from './settings';

export { cpuUsage } from '../payouts/cpu';
export type { CpuUsage } from '../payouts/cpu';

/**
 * CPU so far of each named process, this benchmark's PostgreSQL backends, the orchestrator and the
 * machine (bench/payouts/cpu.ts, with this benchmark's database for the backends).
 */
export function cpuSnapshot(pids: Record<string, number | null>): CpuSnapshot {
  return { ...snapshotOf(pids), postgres: postgresCpuMs(DATABASE) };
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time the hypervisor gave to other machines while ours wanted it (steal, from /proc/stat),
 * in ms so far; null where there is no /proc. A burst of it stalls every process at once.
 */
export function stealMs(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    return (Number(fields[8]) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
