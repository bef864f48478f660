import { TS_NODE } from '../kit/settings';
import type { GeneratorApi, GeneratorRun } from './generator';
import { IpcChild } from './ipc';
import type { ReceiverApi } from './receiver';
import { benchEnvironment, GENERATOR_MAIN, RECEIVER_MAIN, TS_NODE_WITH_PATHS } from './settings';

/** The receiver (receiver.ts) and the event generator (generator.ts) as the orchestrator drives them. */

export type Receiver = IpcChild<ReceiverApi>;
export type Generator = IpcChild<GeneratorApi>;

// ts-node compiles the receiver at start: a few seconds on a busy machine; the generator also
// compiles the service's modules and connects.
const RECEIVER_START_TIMEOUT_MS = 60_000;
const GENERATOR_START_TIMEOUT_MS = 120_000;
// A run's own length plus the last transactions; a database this slow is a failure anyway.
export const RUN_MARGIN_MS = 60_000;

export function startReceiver(logFile: string): Promise<Receiver> {
  const args = [...TS_NODE, RECEIVER_MAIN];
  return IpcChild.start('receiver', args, benchEnvironment(), logFile, RECEIVER_START_TIMEOUT_MS);
}

/** Starts the process and waits until its Nest context is up and connected. */
export function startGenerator(logFile: string): Promise<Generator> {
  const args = [...TS_NODE_WITH_PATHS, GENERATOR_MAIN];
  // The service's own configuration (pool of 20), as the API or worker writing events has.
  return IpcChild.start('generator', args, benchEnvironment(), logFile, GENERATOR_START_TIMEOUT_MS);
}

/** Offers `request`'s events, waiting as long as it lasts plus a margin. */
export function offer(generator: Generator, request: GeneratorRun) {
  const timeoutMs = Math.max(request.startAt - Date.now(), 0) + request.seconds * 1000;
  return generator.ask('run', request, timeoutMs + RUN_MARGIN_MS);
}
