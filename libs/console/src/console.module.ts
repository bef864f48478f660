import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import cookieParser from 'cookie-parser';
import { CONSOLE_SESSION_AUTHENTICATOR } from '@app/auth';
import { ApiKeysConsoleModule } from './api-keys/api-keys-console.module';
import { AuditLogController } from './audit/audit-log.controller';
import { AuditLogReader } from './audit/audit-log.reader';
import { V1ChangeAuditInterceptor } from './audit/v1-change-audit.interceptor';
import { ExistingAccountAcceptance } from './invitations/existing-account-acceptance';
import { InvitationAcceptance } from './invitations/invitation-acceptance';
import { InvitationIssuer } from './invitations/invitation-issuer';
import { InvitationsController } from './invitations/invitations.controller';
import { InvitationsRepository } from './invitations/invitations.repository';
import { OpsModule } from './ops/ops.module';
import { PasskeySignInService } from './passkeys/passkey-sign-in.service';
import { PasskeysController } from './passkeys/passkeys.controller';
import { PasskeysRepository } from './passkeys/passkeys.repository';
import { PasskeysService } from './passkeys/passkeys.service';
import { PasswordResetModule } from './password-reset/password-reset.module';
import { ConsolePayoutsModule } from './payouts/console-payouts.module';
import { ConsoleRefundsModule } from './refunds/console-refunds.module';
import { RequestLogModule } from './request-log/request-log.module';
import { SecuritySessionsController } from './security/security-sessions.controller';
import { ConsoleSessionMerchantAuthenticator } from './sessions/console-session-authenticator';
import { ConsoleSessionGuard } from './sessions/console-session.guard';
import { ConsoleSessionsRepository } from './sessions/console-sessions.repository';
import { PreSessionGuard } from './sessions/pre-session.guard';
import { SessionController } from './sessions/session.controller';
import { SessionService } from './sessions/session.service';
import { SecondFactorService } from './sign-in/second-factor.service';
import { SignInController } from './sign-in/sign-in.controller';
import { SignInThrottle } from './sign-in/sign-in-throttle';
import { SignInService } from './sign-in/sign-in.service';
import { TeamController } from './team/team.controller';
import { TeamRepository } from './team/team.repository';
import { TeamService } from './team/team.service';
import { RecoveryCodes } from './two-factor/recovery-codes';
import { SealingKeyCheck } from './two-factor/sealing-key-check';
import { TwoFactorEnrolment } from './two-factor/two-factor-enrolment';
import { TwoFactorVerifier } from './two-factor/two-factor-verifier';
import { TwoFactorController } from './two-factor/two-factor.controller';
import { ConsoleUsersRepository } from './users/console-users.repository';

/**
 * The merchant console's and the operator area's server side (docs/console.md). Global so the
 * API's authentication guard (libs/auth) finds the session authenticator by its token without
 * importing this module.
 */
@Global()
@Module({
  imports: [
    RequestLogModule,
    ApiKeysConsoleModule,
    OpsModule,
    ConsolePayoutsModule,
    ConsoleRefundsModule,
    PasswordResetModule,
  ],
  controllers: [
    SignInController,
    TwoFactorController,
    InvitationsController,
    SessionController,
    SecuritySessionsController,
    TeamController,
    AuditLogController,
    PasskeysController,
  ],
  providers: [
    TwoFactorVerifier,
    RecoveryCodes,
    SealingKeyCheck,
    TwoFactorEnrolment,
    ConsoleUsersRepository,
    ConsoleSessionsRepository,
    ConsoleSessionGuard,
    PreSessionGuard,
    SessionService,
    SignInService,
    SignInThrottle,
    SecondFactorService,
    InvitationsRepository,
    InvitationIssuer,
    InvitationAcceptance,
    ExistingAccountAcceptance,
    TeamRepository,
    TeamService,
    AuditLogReader,
    PasskeysRepository,
    PasskeysService,
    PasskeySignInService,
    ConsoleSessionMerchantAuthenticator,
    { provide: CONSOLE_SESSION_AUTHENTICATOR, useExisting: ConsoleSessionMerchantAuthenticator },
    // Global: a console user's change through /v1 is audited (docs/console.md).
    { provide: APP_INTERCEPTOR, useClass: V1ChangeAuditInterceptor },
  ],
  exports: [TwoFactorVerifier, CONSOLE_SESSION_AUTHENTICATOR],
})
export class ConsoleModule implements NestModule {
  // Before any guard: the API's guard reads the session cookie on /v1 as the console's do.
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(cookieParser()).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
