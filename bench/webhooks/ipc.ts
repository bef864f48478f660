import type { ChildProcess } from 'node:child_process';

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

const READY = 'ready';
let nextId = 1;

/** Until the child serves requests (a message sent before it listens would be lost). */
export async function ready(child: ChildProcess, timeoutMs: number): Promise<void> {
  await nextMessage(child, (message) => message === READY, timeoutMs, 'start');
}

/** Sends `type` with `payload` to the child and resolves with its handler's result. */
export async function ask<T>(
  child: ChildProcess,
  type: string,
  payload: unknown,
  timeoutMs: number,
): Promise<T> {
  const id = nextId++;
  const answer = nextMessage(
    child,
    (message) => (message as Answer | null)?.id === id,
    timeoutMs,
    type,
  ) as Promise<Answer>;
  child.send({ id, type, payload } satisfies Request);
  const { result, error } = await answer;
  if (error !== undefined) throw new Error(`${type}: ${error}`);
  return result as T;
}

/** The first message that `matches`; fails when the child exits or is silent too long. */
function nextMessage(
  child: ChildProcess,
  matches: (message: unknown) => boolean,
  timeoutMs: number,
  what: string,
): Promise<unknown> {
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

export type Handlers = Record<string, (payload: never) => unknown>;

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
