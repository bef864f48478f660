import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../http/client-info';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { TwoFactorCodeDto } from '../sign-in/sign-in.dto';
import { TwoFactorEnrolment } from './two-factor-enrolment';

@ApiExcludeController()
@Controller('console/api/two-factor')
export class TwoFactorController {
  constructor(private readonly enrolment: TwoFactorEnrolment) {}

  /** The first code from the app: TOTP on, ten recovery codes (shown this once), signed in. */
  @Post('enrol')
  @HttpCode(200)
  @ConsoleAuth({ stage: 'second_factor' })
  async enrol(
    @Body() body: TwoFactorCodeDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    const codes = await this.enrolment.complete(session, body.code, clientInfo(request));
    return { recovery_codes: codes };
  }
}
