import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { RequestLogController } from './request-log.controller';
import { RequestLogMiddleware } from './request-log.middleware';
import { RequestLogRepository } from './request-log.repository';
import { RequestLogRetention } from './request-log-retention';
import { RequestLogWriter } from './request-log.writer';

/** The API's side of the request log: recording every merchant request, and the console's list. */
@Module({
  controllers: [RequestLogController],
  providers: [RequestLogWriter, RequestLogRepository],
  exports: [RequestLogWriter],
})
export class RequestLogModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestLogMiddleware).forRoutes('*');
  }
}

/** The worker's side: the 30-day retention. */
@Module({
  providers: [RequestLogRetention],
  exports: [RequestLogRetention],
})
export class RequestLogRetentionModule {}
