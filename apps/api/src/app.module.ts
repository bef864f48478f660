import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuthModule, BearerAuthGuard } from '@app/auth';
import { BalancesModule } from '@app/balances';
import { CheckoutModule, HostedPageModule } from '@app/checkout';
import {
  ApiExceptionFilter,
  AppConfigModule,
  AppLoggerModule,
  createValidationPipe,
  queueRootModule,
} from '@app/common';
import { DatabaseModule } from '@app/database';
import { EventsModule } from '@app/events';
import { PayoutsModule } from '@app/payouts';
import { SubMerchantsModule } from '@app/sub-merchants';
import { HealthModule } from './health/health.module';

/** The HTTP API: domain modules plus the global guard, pipe and filter every route goes through. */
@Module({
  imports: [
    AppConfigModule,
    AppLoggerModule,
    DatabaseModule,
    AuthModule,
    CheckoutModule,
    HostedPageModule,
    SubMerchantsModule,
    BalancesModule,
    queueRootModule(),
    PayoutsModule,
    EventsModule,
    HealthModule,
  ],
  providers: [
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
  ],
})
export class AppModule {}
