import { Module } from '@nestjs/common';
import { EventWriter } from './event-writer';

/** What a domain module imports to publish events: the writer and nothing else. */
@Module({ providers: [EventWriter], exports: [EventWriter] })
export class EventOutboxModule {}
