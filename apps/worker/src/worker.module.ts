import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { CheckoutModule } from '@app/checkout';
import { APP_CONFIG, AppConfig, AppConfigModule, AppLoggerModule, QUEUES } from '@app/common';
import { DatabaseModule } from '@app/database';
import { IdempotencyModule } from '@app/idempotency';
import { DepositsProcessor } from './deposits/deposits.processor';
import { DepositsScheduler } from './deposits/deposits.scheduler';
import { MaintenanceProcessor } from './maintenance/maintenance.processor';
import { MaintenanceScheduler } from './maintenance/maintenance.scheduler';

/** The worker: the same domain modules as the API, plus the queue processors. No HTTP listener. */
@Module({
  imports: [
    AppConfigModule,
    AppLoggerModule,
    DatabaseModule,
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.redisUrl,
        prefix: `payments:${config.env}`,
      }),
    }),
    BullModule.registerQueue({ name: QUEUES.maintenance }, { name: QUEUES.deposits }),
    CheckoutModule,
    IdempotencyModule,
  ],
  providers: [MaintenanceProcessor, MaintenanceScheduler, DepositsProcessor, DepositsScheduler],
})
export class WorkerModule {}
