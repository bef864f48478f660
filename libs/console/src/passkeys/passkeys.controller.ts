import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../http/client-info';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { PasskeyFreshCodeDto, PasskeyRegistrationDto } from './passkeys.dto';
import { PasskeysService } from './passkeys.service';

/** Settings → Security: the user's own passkeys (docs/console.md, Passkeys). */
@ApiExcludeController()
@Controller('console/api/security/passkeys')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Get()
  @ConsoleAuth()
  list(@CurrentConsoleSession() session: ConsoleSession) {
    return this.passkeys.list(session);
  }

  @Post('registration-options')
  @HttpCode(200)
  @ConsoleAuth()
  registrationOptions(
    @Body() body: PasskeyFreshCodeDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    return this.passkeys.registrationOptions(session, body.two_factor_code, clientInfo(request));
  }

  @Post()
  @ConsoleAuth()
  register(
    @Body() body: PasskeyRegistrationDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    return this.passkeys.register(session, body.name, body.response, clientInfo(request));
  }

  @Delete(':id')
  @HttpCode(204)
  @ConsoleAuth()
  async remove(
    @Param('id') id: string,
    @Body() body: PasskeyFreshCodeDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ): Promise<void> {
    await this.passkeys.remove(session, id, body.two_factor_code, clientInfo(request));
  }
}
