import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '@app/common';
import { clientInfo } from '../http/client-info';
import { PasskeySignInService } from '../passkeys/passkey-sign-in.service';
import { PasskeyAssertionDto } from '../passkeys/passkeys.dto';
import { setSessionCookie } from '../http/session-cookie';
import { ConsoleAuth, ConsolePreSession, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { SecondFactorService } from './second-factor.service';
import { SignInDto, TwoFactorCodeDto } from './sign-in.dto';
import { SignInService } from './sign-in.service';

/** Sign-in: the password, then the second factor, each in its own request. */
@ApiExcludeController()
@Controller('console/api/sign-in')
export class SignInController {
  constructor(
    private readonly signIn: SignInService,
    private readonly secondFactor: SecondFactorService,
    private readonly passkeySignIn: PasskeySignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ConsolePreSession()
  async withPassword(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const result = await this.signIn.withPassword(
      body.realm ?? 'merchant',
      body.email,
      body.password,
      clientInfo(request),
    );
    setSessionCookie(response, this.config, result.session.cookieValue);
    return result.enrolment
      ? { two_factor_enrolment: result.enrolment, csrf_token: result.session.csrfToken }
      : { two_factor_required: true, csrf_token: result.session.csrfToken };
  }

  @Post('two-factor')
  @HttpCode(200)
  @ConsoleAuth({ stage: 'second_factor' })
  async withSecondFactor(
    @Body() body: TwoFactorCodeDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const rotated = await this.secondFactor.verify(session, body.code, clientInfo(request));
    setSessionCookie(response, this.config, rotated.cookieValue);
    return { signed_in: true, csrf_token: rotated.csrfToken };
  }

  /** Whether "Use a passkey" is offered: the account between the two steps has one. */
  @Get('passkey')
  @ConsoleAuth({ stage: 'second_factor' })
  async passkeyAvailable(@CurrentConsoleSession() session: ConsoleSession) {
    return { available: await this.passkeySignIn.available(session) };
  }

  /** A challenge for this sign-in attempt (single-use, 5 minutes). */
  @Post('passkey/options')
  @HttpCode(200)
  @ConsoleAuth({ stage: 'second_factor' })
  passkeyOptions(@CurrentConsoleSession() session: ConsoleSession) {
    return this.passkeySignIn.options(session);
  }

  /** The passkey's assertion instead of the authentication code: the session rotates as a code's. */
  @Post('passkey')
  @HttpCode(200)
  @ConsoleAuth({ stage: 'second_factor' })
  async withPasskey(
    @Body() body: PasskeyAssertionDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const rotated = await this.passkeySignIn.verify(session, body.response, clientInfo(request));
    setSessionCookie(response, this.config, rotated.cookieValue);
    return { signed_in: true, csrf_token: rotated.csrfToken };
  }
}
