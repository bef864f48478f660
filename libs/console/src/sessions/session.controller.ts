import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '@app/common';
import { clientInfo } from '../http/client-info';
import { clearSessionCookie } from '../http/session-cookie';
import { ConsoleAuth, CurrentConsoleSession } from './console-access';
import { ConsoleSession } from './console-session';
import { SwitchMerchantDto } from './session.dto';
import { SessionService } from './session.service';

@ApiExcludeController()
@Controller('console/api')
export class SessionController {
  constructor(
    private readonly sessions: SessionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Who is signed in, for which merchant, with which permissions, and the CSRF token. */
  @Get('session')
  @ConsoleAuth()
  async current(@CurrentConsoleSession() session: ConsoleSession) {
    return this.sessions.describe(session);
  }

  @Post('session/merchant')
  @HttpCode(200)
  @ConsoleAuth()
  async switchMerchant(
    @Body() body: SwitchMerchantDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    return this.sessions.switchMerchant(session, body.merchant_id, clientInfo(request));
  }

  /** Any session, even one still waiting for its second factor, may end itself. */
  @Post('sign-out')
  @HttpCode(204)
  @ConsoleAuth({ stage: 'second_factor' })
  async signOut(
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    await this.sessions.signOut(session, clientInfo(request));
    clearSessionCookie(response, this.config);
  }
}
