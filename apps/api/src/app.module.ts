import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuthModule, BearerAuthGuard, PermissionGuard } from '@app/auth';
import { BalancesModule } from '@app/balances';
import { BalanceTransactionsModule } from '@app/balances/transactions/balance-transactions.module';
import { CONSOLE_SIGN_IN_PATHS, ConsoleModule } from '@app/console';
import {
  CheckoutModule,
  CheckoutTestHelpersModule,
  HOSTED_PAGE_PATH,
  HostedPageModule,
} from '@app/checkout';
import {
  ApiExceptionFilter,
  ApiRateLimitGuard,
  AppConfigModule,
  AppLoggerModule,
  createValidationPipe,
  queueRootModule,
  RateLimitModule,
  RequestInputGuard,
} from '@app/common';
import { ApiDatabaseModule } from '@app/database';
import { EventsModule } from '@app/events';
import { PayoutsModule, PayoutTestHelpersModule } from '@app/payouts';
import { RefundsModule } from '@app/refunds';
import { SubMerchantsModule } from '@app/sub-merchants';
import { ConsoleUiModule } from './console-ui/console-ui.module';
import { HealthModule } from './health/health.module';

/** The HTTP API: domain modules plus the global guard, pipe and filter every route goes through. */
@Module({
  imports: [
    AppConfigModule,
    AppLoggerModule,
    ApiDatabaseModule,
    AuthModule,
    CheckoutModule,
    HostedPageModule,
    // Sandbox simulators: 404 in production and for live keys (docs/sandbox.md).
    CheckoutTestHelpersModule,
    SubMerchantsModule,
    BalancesModule,
    BalanceTransactionsModule,
    queueRootModule(),
    PayoutsModule,
    PayoutTestHelpersModule,
    RefundsModule,
    EventsModule,
    HealthModule,
    ConsoleModule,
    ConsoleUiModule,
    // Public routes other than the hosted page (health, metrics) are not limited.
    RateLimitModule.forApi({
      clientAddressPaths: [HOSTED_PAGE_PATH],
      signInPaths: CONSOLE_SIGN_IN_PATHS,
    }),
  ],
  providers: [
    // First: unstorable or absurdly nested input is a 400 before authentication reads anything.
    { provide: APP_GUARD, useClass: RequestInputGuard },
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
    { provide: APP_GUARD, useExisting: PermissionGuard },
    // After authentication: API limits count per merchant (docs/rate-limits.md).
    { provide: APP_GUARD, useExisting: ApiRateLimitGuard },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: ApiExceptionFilter },
  ],
})
export class AppModule {}
