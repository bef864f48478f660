import { startNode, TrackedProcess } from '../kit/processes';
import { ask, ready } from './ipc';
import { benchEnvironment, GENERATOR_MAIN, TS_NODE_WITH_PATHS } from './settings';

/** The event generator process (generator.ts) as the orchestrator drives it. */

/** Events for these merchants, in turns, at `rate` a second. */
export interface Bucket {
  rate: number;
  merchantIds: string[];
}

export interface GeneratorRun {
  /** Epoch ms: the phase's time zero, shared with the orchestrator. */
  startAt: number;
  seconds: number;
  buckets: Bucket[];
  maxInFlight: number;
}

export interface GeneratorStats {
  /** Transactions committed, per bucket. */
  committed: number[];
  failed: number;
  errors: string[];
  /** Most events due but not yet started at one moment (0: the offered rate was kept). */
  maxBehind: number;
  /** When the last transaction ended. */
  endedAt: number;
}

// Compiling the service's modules with ts-node and connecting: some seconds on a busy machine.
const START_TIMEOUT_MS = 120_000;
// A run's own length plus the last transactions; a database this slow is a failure anyway.
const RUN_MARGIN_MS = 60_000;

export class Generator {
  private constructor(readonly process: TrackedProcess) {}

  /** Starts the process and waits until its Nest context is up and connected. */
  static async start(logFile: string): Promise<Generator> {
    const child = startNode(
      'generator',
      [...TS_NODE_WITH_PATHS, GENERATOR_MAIN],
      // The service's own configuration (pool of 20), as the API or worker writing events has.
      benchEnvironment(),
      logFile,
      true,
    );
    await ready(child.child, START_TIMEOUT_MS);
    return new Generator(child);
  }

  run(request: GeneratorRun): Promise<GeneratorStats> {
    const timeoutMs = Math.max(request.startAt - Date.now(), 0) + request.seconds * 1000;
    return ask(this.process.child, 'run', request, timeoutMs + RUN_MARGIN_MS);
  }

  /** Closes its pool before the database is inspected or dropped. */
  close(): Promise<void> {
    return ask(this.process.child, 'close', null, RUN_MARGIN_MS);
  }
}
