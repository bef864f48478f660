import { QUEUES } from '@app/common';
import { RedisProbe } from './redis-probe';

export const QUEUE_STATES = ['waiting', 'paused', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

// Where Bull 4 keeps each state (the same reads as Queue#getJobCounts): lists and sorted sets
// under `<prefix>:<queue>:`. Read through the probe connection, so Redis down fails at once.
const STATE_KEYS: Record<QueueState, ['llen' | 'zcard', string]> = {
  waiting: ['llen', 'wait'],
  paused: ['llen', 'paused'],
  active: ['llen', 'active'],
  delayed: ['zcard', 'delayed'],
  failed: ['zcard', 'failed'],
};

export type QueueDepths = Array<{ queue: string; state: QueueState; count: number }>;

/** Jobs per state of every queue of the service, in one pipeline. */
export async function readQueueDepths(redis: RedisProbe, prefix: string): Promise<QueueDepths> {
  const pairs = Object.values(QUEUES).flatMap((queue) =>
    QUEUE_STATES.map((state) => ({ queue, state })),
  );
  const counts = await redis.pipeline(
    pairs.map(({ queue, state }) => {
      const [command, suffix] = STATE_KEYS[state];
      return [command, `${prefix}:${queue}:${suffix}`];
    }),
  );
  return pairs.map((pair, index) => ({ ...pair, count: Number(counts[index]) }));
}
