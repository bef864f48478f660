import { startNode, TrackedProcess } from '../kit/processes';

/*
 * Request and answer over a child's IPC channel: the benchmark's receiver and event generator run
 * in processes of their own (so their CPU is theirs, not the orchestrator's) and are driven by it.
 */

interface Request {
  id: number;
  type: string;
  payload: unknown;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: string;
}

/** What a child serves: a handler per request type, typed for the orchestrator's `ask`. */
type Handlers = Record<string, (payload: never) => unknown>;

const READY = 'ready';
const ANSWER_TIMEOUT_MS = 30_000;
let nextId = 1;

/** A helper process that serves requests (`serve` below), as the orchestrator drives it. */
export class IpcChild<H extends Handlers> {
  private constructor(readonly process: TrackedProcess) {}

  /** Starts `node ...args` and waits until it serves requests (one sent before would be lost). */
  static async start<H extends Handlers>(
    name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    logFile: string,
    timeoutMs: number,
  ): Promise<IpcChild<H>> {
    const child = new IpcChild<H>(startNode(name, args, env, logFile, true));
    await child.nextMessage((message) => message === READY, timeoutMs, 'start');
    return child;
  }

  /** Sends `type` with `payload` and resolves with its handler's result. */
  async ask<K extends keyof H & string>(
    type: K,
    payload?: Parameters<H[K]>[0],
    timeoutMs = ANSWER_TIMEOUT_MS,
  ): Promise<Awaited<ReturnType<H[K]>>> {
    const id = nextId++;
    const answer = this.nextMessage(
      (message) => (message as Answer | null)?.id === id,
      timeoutMs,
      type,
    ) as Promise<Answer>;
    this.process.child.send({ id, type, payload } satisfies Request);
    const { result, error } = await answer;
    if (error !== undefined) throw new Error(`${type}: ${error}`);
    return result as Awaited<ReturnType<H[K]>>;
  }

  /** The first message that `matches`; fails when the child exits or is silent too long. */
  private nextMessage(
    matches: (message: unknown) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<unknown> {
    const child = this.process.child;
    return new Promise((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (!matches(message)) return;
        finish();
        resolve(message);
      };
      const onExit = () => {
        finish();
        reject(new Error(`${what}: the child process exited first`));
      };
      const finish = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${what}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }
}

/** In the child: answers each request with its handler's result (or its error's message). */
export function serve(handlers: Handlers): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('Started without an IPC channel: run it through the bench.');
  process.on('message', (message: Request) => {
    const handler = handlers[message.type];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown request ${message.type}`);
        return handler(message.payload as never);
      })
      .then(
        (result) => send({ id: message.id, result } satisfies Answer),
        (error: unknown) =>
          send({
            id: message.id,
            error: error instanceof Error ? error.message : String(error),
          } satisfies Answer),
      );
  });
  // The orchestrator going away (Ctrl-C, a crash) must not leave this process behind.
  process.on('disconnect', () => process.exit(0));
  send(READY);
}
