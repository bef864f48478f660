import { machineCpuMs, postgresCpuMs, processCpuMs } from '../deposits/cpu';
import { DATABASE } from './settings';

/*
 * CPU time per component over a phase, from Linux /proc through bench/deposits/cpu.ts: the API,
 * each worker, anvil, this database's PostgreSQL backends, the benchmark itself, and the rest of
 * the machine ("other": another benchmark, a test run, a build).
 */

export interface CpuSnapshot {
  at: number;
  processes: Record<string, number | null>;
  postgres: Map<string, number>;
  bench: number;
  machine: number | null;
}

export interface CpuUsage {
  seconds: number;
  /** Milliseconds of CPU in the window, per named process, plus postgres and bench. */
  ms: Record<string, number | null>;
  /** Cores kept busy by the benchmark's own processes, and by everything else on the machine. */
  coresBusy: number;
  otherCores: number | null;
}

export function cpuSnapshot(pids: Record<string, number | null>): CpuSnapshot {
  const own = process.cpuUsage();
  return {
    at: Date.now(),
    processes: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [
        name,
        pid === null ? null : processCpuMs(String(pid)),
      ]),
    ),
    postgres: postgresCpuMs(DATABASE),
    bench: (own.user + own.system) / 1000,
    machine: machineCpuMs(),
  };
}

export function cpuUsage(before: CpuSnapshot, after: CpuSnapshot): CpuUsage {
  const seconds = (after.at - before.at) / 1000;
  const difference = (a: number | null | undefined, b: number | null | undefined) =>
    a === null || a === undefined || b === null || b === undefined ? null : Math.round(b - a);
  // Backends that exited during the window are lost (idle pool connections closing: ~0 ms).
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const ms: Record<string, number | null> = {};
  for (const name of Object.keys(after.processes)) {
    ms[name] = difference(before.processes[name], after.processes[name]);
  }
  ms.postgres = Math.round(postgres);
  ms.bench = Math.round(after.bench - before.bench);
  const ours = Object.values(ms).reduce<number>((sum, value) => sum + (value ?? 0), 0);
  const machine = difference(before.machine, after.machine);
  return {
    seconds: Math.round(seconds * 100) / 100,
    ms,
    coresBusy: cores(ours, seconds),
    otherCores: machine === null ? null : cores(Math.max(machine - ours, 0), seconds),
  };
}

function cores(ms: number, seconds: number): number {
  return seconds > 0 ? Math.round((ms / (seconds * 1000)) * 100) / 100 : 0;
}
