import { Module } from '@nestjs/common';
import { SubMerchantsModule } from '@app/sub-merchants';
import { WebhookEndpointsController } from './endpoints/webhook-endpoints.controller';
import { WebhookEndpointsRepository } from './endpoints/webhook-endpoints.repository';
import { WebhookEndpointsService } from './endpoints/webhook-endpoints.service';
import { EventsController } from './events/events.controller';
import { EventsRepository } from './events/events.repository';
import { EventsService } from './events/events.service';
import { EventOutboxModule } from './outbox/event-outbox.module';

/** The merchant API of events and webhook endpoints. Delivery runs in the worker. */
@Module({
  imports: [SubMerchantsModule, EventOutboxModule],
  controllers: [EventsController, WebhookEndpointsController],
  providers: [EventsRepository, EventsService, WebhookEndpointsRepository, WebhookEndpointsService],
  exports: [WebhookEndpointsRepository],
})
export class EventsModule {}
