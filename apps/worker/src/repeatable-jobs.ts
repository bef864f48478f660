import type { Logger } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';

// Repeatable jobs live in Redis: a flush or a restart without persistence loses them, and a stale
// one running at its removal schedules itself again. Registering is idempotent (Bull keys a
// schedule by name, id and interval), so a worker registers its schedules again periodically.
export const RESCHEDULE_EVERY_MS = 15_000;

type RepeatOptions = NonNullable<JobOptions['repeat']> & { key?: string };

/** The key Bull stored for a repeatable job's schedule (`name:jobId::every`). */
function repeatKeyOf(job: Job): string | undefined {
  return (job.opts.repeat as RepeatOptions | undefined)?.key;
}

/**
 * Makes `added` the queue's only repeatable schedules (of job `name` only, when given: schedulers
 * that share a queue each keep to their own jobs). A schedule lives in Redis until removed, so
 * one a worker no longer wants (an interval changed, a hot wallet taken out of the configuration)
 * would otherwise keep being run forever by every worker of the queue.
 */
export async function removeOtherSchedules(
  queue: Queue,
  added: Job[],
  logger: Logger,
  name?: string,
): Promise<void> {
  const wanted = new Set(added.map(repeatKeyOf));
  for (const schedule of await queue.getRepeatableJobs()) {
    if (wanted.has(schedule.key) || (name !== undefined && schedule.name !== name)) continue;
    await queue.removeRepeatableByKey(schedule.key);
    logger.log(
      { queue: queue.name, schedule: schedule.key },
      'Removed a schedule no longer configured',
    );
  }
}

/**
 * Runs `schedule` again every RESCHEDULE_EVERY_MS until the returned function is called. A failed
 * pass (Redis unreachable) is logged and the next one retries; the timer never keeps the process
 * alive. `what` names the jobs in the warning ("Payout jobs").
 */
export function keepRescheduling(
  schedule: () => Promise<void>,
  logger: Logger,
  what: string,
): () => void {
  const timer = setInterval(() => {
    schedule().catch((error: unknown) =>
      logger.warn({ reason: String(error) }, `${what} not rescheduled; retrying`),
    );
  }, RESCHEDULE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
