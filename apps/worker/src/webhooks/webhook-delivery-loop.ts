import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { WebhookDispatcher } from '@app/events/delivery/webhook-dispatcher';

/**
 * Starts the webhook delivery loop in the worker, and only there: the library's dispatcher has no
 * lifecycle hook of its own. The worker's drain (worker-drain.ts) stops it before Nest's hooks
 * close anything; stopping it again here is a no-op then, and covers a context closed without a
 * drain (tests).
 */
@Injectable()
export class WebhookDeliveryLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly dispatcher: WebhookDispatcher) {}

  onApplicationBootstrap(): void {
    this.dispatcher.start();
  }

  /** Stops claiming and waits for the attempts in flight (bounded by their timeout). */
  stop(): Promise<void> {
    return this.dispatcher.stop();
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}
