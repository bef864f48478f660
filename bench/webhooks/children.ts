import { TS_NODE } from '../kit/settings';
import type { GeneratorRun, GeneratorStats } from './generator';
import { IpcChild } from './ipc';
import type { Collected, PortRequest, Ports } from './receiver';
import { benchEnvironment, GENERATOR_MAIN, RECEIVER_MAIN, TS_NODE_WITH_PATHS } from './settings';

/** The receiver (receiver.ts) and the event generator (generator.ts) as the orchestrator drives them. */

const ANSWER_TIMEOUT_MS = 30_000;
// ts-node compiles the receiver at start: a few seconds on a busy machine; the generator also
// compiles the service's modules and connects.
const RECEIVER_START_TIMEOUT_MS = 60_000;
const GENERATOR_START_TIMEOUT_MS = 120_000;
// A run's own length plus the last transactions; a database this slow is a failure anyway.
const RUN_MARGIN_MS = 60_000;

export class Receiver {
  private constructor(private readonly ipc: IpcChild) {}

  static async start(logFile: string): Promise<Receiver> {
    const args = [...TS_NODE, RECEIVER_MAIN];
    const env = benchEnvironment();
    return new Receiver(
      await IpcChild.start('receiver', args, env, logFile, RECEIVER_START_TIMEOUT_MS),
    );
  }

  get process() {
    return this.ipc.process;
  }

  open(request: PortRequest): Promise<Ports> {
    return this.ipc.ask('open', request, ANSWER_TIMEOUT_MS);
  }

  collect(): Promise<Collected> {
    return this.ipc.ask('collect', null, ANSWER_TIMEOUT_MS);
  }

  /** Ends the requests the hanging endpoints hold; returns how many. */
  release(): Promise<number> {
    return this.ipc.ask('release', null, ANSWER_TIMEOUT_MS);
  }
}

export class Generator {
  private constructor(private readonly ipc: IpcChild) {}

  /** Starts the process and waits until its Nest context is up and connected. */
  static async start(logFile: string): Promise<Generator> {
    const args = [...TS_NODE_WITH_PATHS, GENERATOR_MAIN];
    // The service's own configuration (pool of 20), as the API or worker writing events has.
    const env = benchEnvironment();
    return new Generator(
      await IpcChild.start('generator', args, env, logFile, GENERATOR_START_TIMEOUT_MS),
    );
  }

  get process() {
    return this.ipc.process;
  }

  run(request: GeneratorRun): Promise<GeneratorStats> {
    const timeoutMs = Math.max(request.startAt - Date.now(), 0) + request.seconds * 1000;
    return this.ipc.ask('run', request, timeoutMs + RUN_MARGIN_MS);
  }

  /** Closes its pool before the database is inspected or dropped. */
  close(): Promise<void> {
    return this.ipc.ask('close', null, RUN_MARGIN_MS);
  }
}
