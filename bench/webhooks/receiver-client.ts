import { startNode, TrackedProcess } from '../kit/processes';
import { ask, ready } from './ipc';
import { TS_NODE } from '../kit/settings';
import { benchEnvironment, RECEIVER_MAIN } from './settings';

/** The receiver process (receiver.ts) as the orchestrator drives it. */

/** One request received: which endpoint, its webhook-id, when (epoch ms, sub-ms). */
export interface Arrival {
  endpoint: string;
  id: string;
  at: number;
}

/** A request kept whole, to verify its signature with the official library. */
export interface SignedSample {
  endpoint: string;
  body: string;
  headers: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;
}

export interface Collected {
  arrivals: Arrival[];
  samples: SignedSample[];
  /** Bodies whose `id` differs from their webhook-id header, or that are not JSON. */
  mismatches: number;
}

export interface PortRequest {
  live: number;
  hanging: number;
  closed: number;
}

export interface Ports {
  live: number[];
  hanging: number[];
  closed: number[];
}

const ANSWER_TIMEOUT_MS = 30_000;
// ts-node compiles the receiver at start: a few seconds on a busy machine.
const START_TIMEOUT_MS = 60_000;

export class Receiver {
  private constructor(readonly process: TrackedProcess) {}

  static async start(logFile: string): Promise<Receiver> {
    const child = startNode(
      'receiver',
      [...TS_NODE, RECEIVER_MAIN],
      benchEnvironment(),
      logFile,
      true,
    );
    await ready(child.child, START_TIMEOUT_MS);
    return new Receiver(child);
  }

  open(request: PortRequest): Promise<Ports> {
    return ask(this.process.child, 'open', request, ANSWER_TIMEOUT_MS);
  }

  collect(): Promise<Collected> {
    return ask(this.process.child, 'collect', null, ANSWER_TIMEOUT_MS);
  }

  /** Ends the requests the hanging endpoints hold; returns how many. */
  release(): Promise<number> {
    return ask(this.process.child, 'release', null, ANSWER_TIMEOUT_MS);
  }
}
