import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '@app/common';
import { clientInfo } from '../http/client-info';
import { setSessionCookie } from '../http/session-cookie';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { TwoFactorCodeDto } from '../sign-in/sign-in.dto';
import { TwoFactorEnrolment } from './two-factor-enrolment';

@ApiExcludeController()
@Controller('console/api/two-factor')
export class TwoFactorController {
  constructor(
    private readonly enrolment: TwoFactorEnrolment,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The first code from the app: TOTP on, ten recovery codes (shown this once), signed in. */
  @Post('enrol')
  @HttpCode(200)
  @ConsoleAuth({ stage: 'second_factor' })
  async enrol(
    @Body() body: TwoFactorCodeDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const done = await this.enrolment.complete(session, body.code, clientInfo(request));
    // The session id and CSRF token rotate here: the browser gets the new cookie and token.
    setSessionCookie(response, this.config, done.session.cookieValue);
    return { recovery_codes: done.recoveryCodes, csrf_token: done.session.csrfToken };
  }
}
