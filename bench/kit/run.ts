import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { installCleanup, stopAllProcesses } from './processes';
import { RESULTS_DIR } from './settings';

/** What a benchmark's main gets: where its files go, a step logger, and its own clean-up. */
export interface Run {
  startedAt: number;
  /** bench/results/<name>-<ISO time>: the report and logs are named after it. */
  base: string;
  /** `${base}.${part}.log` */
  log(part: string): string;
  /** Prints `[bench   12.3s] message`: where the run is, seconds since its start. */
  step(message: string): void;
  /** Runs on success, failure and Ctrl-C, after the child processes are stopped. */
  onStop(cleanup: () => Promise<unknown> | unknown): void;
}

/**
 * Runs a benchmark's main: results directory made, every child process stopped at the end (and on
 * Ctrl-C), a thrown error printed as FAILED with exit code 1.
 */
export function runBenchmark(name: string, main: (run: Run) => Promise<void>): void {
  const startedAt = Date.now();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const base = join(
    RESULTS_DIR,
    `${name}-${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}`,
  );
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    await stopAllProcesses();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  installCleanup(stop);
  const run: Run = {
    startedAt,
    base,
    log: (part) => `${base}.${part}.log`,
    step: (message) => {
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
      console.log(`[bench ${seconds}s] ${message}`);
    },
    onStop: (cleanup) => cleanups.push(cleanup),
  };
  main(run)
    .catch((error: unknown) => {
      console.error('\n[bench] FAILED:', error instanceof Error ? error.message : error);
      process.exitCode = 1;
    })
    .finally(() =>
      stop().catch((error: unknown) => {
        console.error('[bench] stopping:', error instanceof Error ? error.message : error);
        process.exitCode = 1;
      }),
    );
}
