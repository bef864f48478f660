import { sleep, timestamp } from './clock';
import { assertRunning, TrackedProcess } from './processes';

/**
 * Polls `condition` every `pollMs` until it holds (true) or `timeoutMs` has passed (false); with
 * `child`, fails at once when that process has exited (waiting on a dead worker ends nowhere).
 */
export async function pollUntil(
  condition: () => Promise<boolean>,
  options: { timeoutMs: number; pollMs: number; child?: TrackedProcess },
): Promise<boolean> {
  const deadline = timestamp() + options.timeoutMs;
  while (!(await condition())) {
    if (options.child) assertRunning(options.child);
    if (timestamp() > deadline) return false;
    await sleep(options.pollMs);
  }
  return true;
}
