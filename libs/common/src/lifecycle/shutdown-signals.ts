import { Logger } from '@nestjs/common';

const logger = new Logger('Shutdown');

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT (a second signal changes nothing: the
 * shutdown is already bounded), then exits 0 when it reports a clean stop, 1 otherwise.
 * Replaces Nest's enableShutdownHooks, which closes the app in an order that cannot wait for
 * HTTP requests or jobs in flight, then re-raises the signal (a non-zero exit).
 */
export function onShutdownSignal(shutdown: (signal: NodeJS.Signals) => Promise<boolean>): void {
  let started = false;
  const handle = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    logger.log({ signal }, 'Shutting down');
    shutdown(signal).then(
      (clean) => {
        if (clean) logger.log('Shut down cleanly');
        else logger.error('Shutdown bound reached with work still in flight; exiting anyway');
        process.exit(clean ? 0 : 1);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

/** Whether `work` settled (and succeeded) before `deadline` (epoch ms); never throws. */
export async function settlesBefore(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), Math.max(deadline - Date.now(), 0));
      }),
    ]);
  } catch (error) {
    logger.error({ err: error }, 'Shutdown step failed');
    return false;
  } finally {
    clearTimeout(timer);
  }
}
