import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { CheckoutModule } from '@app/checkout';
import { AppConfigModule } from '@app/common';
import { DatabaseModule } from '@app/database';

/** What the operator CLI needs: configuration, the database and the domain services. */
@Module({
  imports: [AppConfigModule, DatabaseModule, AuthModule, CheckoutModule],
})
export class CliModule {}
