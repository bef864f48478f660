import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { Counter, Histogram, Registry } from 'prom-client';
import { QUEUES } from '@app/common';
import { METRIC_PREFIX, METRICS_REGISTRY } from './metrics-registry';

// From a reconcile pass (milliseconds) to a payout send on a slow node (tens of seconds).
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The worker's jobs (this process's only) by queue, job name and outcome, with their durations. */
@Injectable()
export class JobMetrics implements OnModuleInit {
  private readonly jobs: Counter<'queue' | 'job' | 'outcome'>;
  private readonly durations: Histogram<'queue' | 'job' | 'outcome'>;

  constructor(
    @Inject(METRICS_REGISTRY) registry: Registry,
    @InjectQueue(QUEUES.payouts) private readonly payouts: Queue,
    @InjectQueue(QUEUES.maintenance) private readonly maintenance: Queue,
  ) {
    const labelNames = ['queue', 'job', 'outcome'] as const;
    this.jobs = new Counter({
      name: `${METRIC_PREFIX}jobs_total`,
      help: 'Jobs this worker finished, by queue, job name and outcome (completed, failed).',
      labelNames,
      registers: [registry],
    });
    this.durations = new Histogram({
      name: `${METRIC_PREFIX}job_duration_seconds`,
      help: 'Time this worker spent on a job, by queue, job name and outcome.',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  onModuleInit(): void {
    for (const queue of [this.payouts, this.maintenance]) {
      queue.on('completed', (job: Job) => this.record(queue.name, job, 'completed'));
      queue.on('failed', (job: Job) => this.record(queue.name, job, 'failed'));
    }
  }

  private record(queue: string, job: Job, outcome: 'completed' | 'failed'): void {
    const labels = { queue, job: job.name, outcome };
    this.jobs.inc(labels);
    if (job.processedOn && job.finishedOn) {
      this.durations.observe(labels, (job.finishedOn - job.processedOn) / 1000);
    }
  }
}
