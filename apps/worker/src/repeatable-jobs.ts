import type { Logger } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';

type RepeatOptions = NonNullable<JobOptions['repeat']> & { key?: string };

/** The key Bull stored for a repeatable job's schedule (`name:jobId::every`). */
function repeatKeyOf(job: Job): string | undefined {
  return (job.opts.repeat as RepeatOptions | undefined)?.key;
}

/**
 * Makes `added` the queue's only repeatable schedules. A schedule lives in Redis until removed, so
 * one a worker no longer wants (an interval changed, a hot wallet taken out of the configuration)
 * would otherwise keep being run forever by every worker of the queue.
 */
export async function removeOtherSchedules(
  queue: Queue,
  added: Job[],
  logger: Logger,
): Promise<void> {
  const wanted = new Set(added.map(repeatKeyOf));
  for (const schedule of await queue.getRepeatableJobs()) {
    if (wanted.has(schedule.key)) continue;
    await queue.removeRepeatableByKey(schedule.key);
    logger.log(
      { queue: queue.name, schedule: schedule.key },
      'Removed a schedule no longer configured',
    );
  }
}
