export * from './event-types';
export * from './outbox/event-writer';
export * from './outbox/event-outbox.module';
export * from './events.module';
export * from './delivery/webhook-delivery.module';
export * from './events/dto/event.dto';
