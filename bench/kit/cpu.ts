import { readdirSync, readFileSync } from 'node:fs';

/*
 * CPU time per component from Linux /proc (null elsewhere). Everything shares one small machine,
 * so "who was busy" says more about where a phase's time went than the wall clock alone.
 */

const CLOCK_TICKS_PER_SECOND = 100;
// Other processes (another benchmark, a build) busier than this during a window make its
// figures doubtful: they compete for the same cores.
export const OTHER_LOAD_WARNING_CORES = 0.2;

/** A warning for each window in which other processes used more than that. */
export function otherLoadWarnings(windows: Array<{ name: string; cpu: CpuUsage }>): string[] {
  return windows
    .filter(({ cpu }) => (cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES)
    .map(({ name, cpu }) => `${name}: other processes used ${cpu.otherCores} cores`);
}

export interface CpuSnapshot {
  at: number;
  processes: Record<string, number | null>;
  postgres: Map<string, number>;
  bench: number;
  machine: number | null;
}

export interface CpuUsage {
  seconds: number;
  /** Milliseconds of CPU in the window, per named process, plus `postgres` and `bench`. */
  ms: Record<string, number | null>;
  /** Cores kept busy by the benchmark's own processes, and by everything else on the machine. */
  coresBusy: number;
  otherCores: number | null;
}

/** CPU so far of each named process, the database's backends, this process and the machine. */
export function cpuSnapshot(
  database: string | null,
  pids: Record<string, number | null>,
): CpuSnapshot {
  const own = process.cpuUsage();
  return {
    at: Date.now(),
    processes: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [
        name,
        pid === null ? null : processCpuMs(String(pid)),
      ]),
    ),
    postgres: postgresCpuMs(database),
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
    seconds: round(seconds, 2),
    ms,
    coresBusy: cores(ours, seconds),
    otherCores: machine === null ? null : cores(Math.max(machine - ours, 0), seconds),
  };
}

/**
 * CPU time the hypervisor gave to other machines while ours wanted it (steal), in ms so far; null
 * where there is no /proc. A burst of it stalls every process at once.
 */
export function stealMs(): number | null {
  return machineTimes()?.steal ?? null;
}

/** anvil, started by test/support/devnet.ts as a child of this process. */
export function anvilPid(): number | null {
  for (const pid of numericEntries('/proc')) {
    const stat = readProc(`/proc/${pid}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === process.pid && readProc(`/proc/${pid}/comm`)?.trim() === 'anvil') {
      return Number(pid);
    }
  }
  return null;
}

/**
 * Processes whose command line mentions one of `benchmarks` (by default bench/api: another
 * engineer's `npm run bench:api`).
 */
export function otherBenchmarks(benchmarks = ['bench/api']): string[] {
  const found: string[] = [];
  // This process and the ones that started it (npm, sh -c) are not "other".
  const own = new Set<number>();
  for (let pid = process.pid; pid > 1 && !own.has(pid); pid = parentPid(pid)) own.add(pid);
  for (const pid of numericEntries('/proc')) {
    if (own.has(Number(pid))) continue;
    const commandLine = readProc(`/proc/${pid}/cmdline`)?.split('\0').join(' ').trim();
    if (commandLine && benchmarks.some((benchmark) => commandLine.includes(benchmark))) {
      found.push(`${pid} ${commandLine.slice(0, 80)}`);
    }
  }
  return found;
}

function parentPid(pid: number): number {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : 0;
}

export function loadAverage(): number[] {
  return (readProc('/proc/loadavg') ?? '0 0 0').split(' ').slice(0, 3).map(Number);
}

/** User + system CPU of one process so far, in ms (null when it is gone or not on Linux). */
export function processCpuMs(pid: string): number | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The backends connected to a benchmark's database (they come and go with the pools), by pid:
 * their process title names the database. Another benchmark's backends count as "other". With
 * `database` null: every postgres process, the WAL writer and checkpointer included.
 */
export function postgresCpuMs(database: string | null): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const pid of numericEntries('/proc')) {
    if (readProc(`/proc/${pid}/comm`)?.trim() !== 'postgres') continue;
    if (database !== null && !readProc(`/proc/${pid}/cmdline`)?.includes(` ${database} `)) continue;
    const ms = processCpuMs(pid);
    if (ms !== null) byPid.set(pid, ms);
  }
  return byPid;
}

/** Machine-wide CPU ms from /proc/stat: process time, interrupts (loopback traffic), steal. */
export function machineTimes(): { processes: number; interrupts: number; steal: number } | null {
  const line = readProc('/proc/stat')?.split('\n')[0];
  if (!line) return null;
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  return { processes: ms(user + nice + system), interrupts: ms(irq + softirq), steal: ms(steal) };
}

/** Machine-wide process CPU (user + nice + system) from /proc/stat. */
export function machineCpuMs(): number | null {
  return machineTimes()?.processes ?? null;
}

function numericEntries(directory: string): string[] {
  try {
    return readdirSync(directory).filter((entry) => /^[0-9]+$/.test(entry));
  } catch {
    return [];
  }
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function cores(ms: number, seconds: number): number {
  return seconds > 0 ? round(ms / (seconds * 1000), 2) : 0;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
