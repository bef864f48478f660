import { getQueueToken } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import type Redis from 'ioredis';
import { QUEUES } from '@app/common';
import { DepositWatchLoops } from './deposits/deposit-watch-loops';
import { WebhookDeliveryLoop } from './webhooks/webhook-delivery-loop';

// Bull sets its local pause flag once the queue is ready: a few turns of the event loop at most.
const PAUSE_FLAG_TURNS = 1_000;

/** What Bull keeps of its blocking connection (not in its types). */
interface BlockingClient {
  bclientInitialized?: boolean;
  bclient?: Redis;
}

/**
 * The first step of the worker's shutdown, before Nest's own hooks: stop taking work and let what
 * is in flight finish while the chains, queues and database are all still open. Nest's order
 * alone would close the chain adapters (a destroy hook) before Bull waits for a payout send in
 * flight (a shutdown hook).
 */
@Injectable()
export class WorkerDrain {
  private readonly logger = new Logger(WorkerDrain.name);

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly depositLoops: DepositWatchLoops,
    private readonly webhookLoop: WebhookDeliveryLoop,
  ) {}

  /** Takes no new work at once; resolves when every job, webhook attempt and tick has ended. */
  async drain(): Promise<void> {
    const queues = await Promise.all(Object.values(QUEUES).map((name) => this.stopTaking(name)));
    const inFlight = [
      // A local pause resolves when the queue's active jobs have finished.
      ...queues.map((queue) => queue.finished),
      // Stops claiming deliveries and waits for the attempts in flight (bounded by their timeout).
      this.webhookLoop.stop(),
      // Each loop ends after its current tick, which commits whole or not at all.
      this.depositLoops.onModuleDestroy(),
    ];
    this.logger.log('Taking no new work; waiting for the work in flight');
    await Promise.all(inFlight);
  }

  /** Pauses the queue locally; returns (as a value) the wait for its active jobs. */
  private async stopTaking(name: string): Promise<{ finished: Promise<void> }> {
    const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
    const finished = queue.pause(true).catch((error: Error) => {
      // Redis down: no job can be taken anyway, and those in flight end on their own.
      this.logger.warn({ queue: name, reason: error.message }, 'Queue not paused');
    });
    for (let turn = 0; turn < PAUSE_FLAG_TURNS && !(await queue.isPaused(true)); turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Bull then asks its blocking connection to QUIT, which Redis answers only when the pending
    // BRPOPLPUSH returns: a job pushed meanwhile (up to 500 ms) would still be taken. Dropping
    // the connection ends that wait now; Bull reconnects it, and the pause holds.
    const blocking = queue as unknown as BlockingClient;
    if (blocking.bclientInitialized) blocking.bclient?.disconnect();
    return { finished };
  }
}
