import { Module } from '@nestjs/common';
import { WebhookEndpointsRepository } from '../endpoints/webhook-endpoints.repository';
import { EventOutboxModule } from '../outbox/event-outbox.module';
import { DeliveryQueueRepository } from './delivery-queue.repository';
import { EndpointHealth } from './endpoint-health';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookSender } from './webhook-sender';

/** Webhook delivery: the worker imports it and starts the dispatcher (apps/worker/src/webhooks). */
@Module({
  imports: [EventOutboxModule],
  providers: [
    WebhookEndpointsRepository,
    DeliveryQueueRepository,
    EndpointHealth,
    WebhookSender,
    WebhookDispatcher,
  ],
  exports: [WebhookDispatcher],
})
export class WebhookDeliveryModule {}
