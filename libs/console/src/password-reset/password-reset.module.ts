import { Module } from '@nestjs/common';
import { ConsoleSessionsRepository } from '../sessions/console-sessions.repository';
import { SignInThrottle } from '../sign-in/sign-in-throttle';
import { RecoveryCodes } from '../two-factor/recovery-codes';
import { PasswordResetController, TeamPasswordResetController } from './password-reset.controller';
import { PasswordResetService } from './password-reset.service';
import { PasswordResetsRepository } from './password-resets.repository';
import { TeamPasswordResets } from './team-password-resets';

/**
 * Password reset links (docs/console.md). TwoFactorVerifier comes from the global ConsoleModule;
 * the other helpers are stateless and built here.
 */
@Module({
  controllers: [PasswordResetController, TeamPasswordResetController],
  providers: [
    PasswordResetsRepository,
    PasswordResetService,
    TeamPasswordResets,
    RecoveryCodes,
    SignInThrottle,
    ConsoleSessionsRepository,
  ],
})
export class PasswordResetModule {}
