import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../http/client-info';
import { ConsoleAuth, ConsolePreSession, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { CompletePasswordResetDto, PasswordResetLookupDto } from './password-reset.dto';
import { PasswordResetService } from './password-reset.service';
import { TeamPasswordResets } from './team-password-resets';

/**
 * The reset page's calls, before any session: under /console/api/sign-in so they share its
 * per-client rate limit. The token travels in the body, never in a URL path.
 */
@ApiExcludeController()
@Controller('console/api/sign-in/password-reset')
export class PasswordResetController {
  constructor(private readonly resets: PasswordResetService) {}

  @Post('lookup')
  @HttpCode(200)
  @ConsolePreSession()
  async lookup(@Body() body: PasswordResetLookupDto) {
    return this.resets.lookup(body.token);
  }

  @Post()
  @HttpCode(200)
  @ConsolePreSession()
  async complete(@Body() body: CompletePasswordResetDto, @Req() request: Request) {
    await this.resets.complete(body.token, body.password, body.code, clientInfo(request));
    return { password_reset: true };
  }
}

type Actor = Parameters<TeamPasswordResets['issue']>[0];

/** Settings → Team: an owner or admin issues a member's reset link. */
@ApiExcludeController()
@Controller('console/api/team/members')
export class TeamPasswordResetController {
  constructor(private readonly resets: TeamPasswordResets) {}

  @Post(':userId/password-reset')
  @ConsoleAuth({ permission: 'team:write' })
  async issue(
    @Param('userId') userId: string,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    // The guard's permission check guarantees a merchant and a role.
    return this.resets.issue(session as Actor, userId, clientInfo(request));
  }
}
