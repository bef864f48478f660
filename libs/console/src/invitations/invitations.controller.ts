import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { clientInfo } from '../http/client-info';
import { setSessionCookie } from '../http/session-cookie';
import { ConsolePreSession } from '../sessions/console-access';
import { invitationView } from './invitation';
import { ConsoleUsersRepository } from '../users/console-users.repository';
import { ExistingAccountAcceptance } from './existing-account-acceptance';
import { invitationGone, InvitationAcceptance } from './invitation-acceptance';
import {
  AcceptInvitationDto,
  AcceptWithAccountDto,
  InvitationLookupDto,
  isInvitationTokenShape,
} from './invitation.dto';
import { InvitationsRepository } from './invitations.repository';

/** The invitation page: what the invitation is for, then the new account. */
@ApiExcludeController()
@Controller('console/api/invitations')
export class InvitationsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly invitations: InvitationsRepository,
    private readonly acceptance: InvitationAcceptance,
    private readonly existingAccount: ExistingAccountAcceptance,
    private readonly users: ConsoleUsersRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * What an invitation is for. The token travels in the body, never in a URL path: a request
   * line ends up in application, proxy and CDN logs, and the token accepts the invitation.
   */
  @Post('lookup')
  @HttpCode(200)
  @ConsolePreSession()
  async lookup(@Body() body: InvitationLookupDto) {
    const token = body.token;
    const invitation = isInvitationTokenShape(token)
      ? await this.invitations.findPendingByToken(this.dataSource.manager, token)
      : null;
    if (!invitation) throw invitationGone();
    // Which form the page shows: a new password, or the existing account's sign-in. Only the
    // invitation's holder learns it, and accepting would tell them anyway.
    const account = await this.users.findByEmail(
      this.dataSource.manager,
      invitation.realm,
      invitation.email,
    );
    return { ...invitationView(invitation), account_exists: account !== null };
  }

  @Post('accept')
  @HttpCode(200)
  @ConsolePreSession()
  async accept(
    @Body() body: AcceptInvitationDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { session, enrolment } = await this.acceptance.accept(
      body.token,
      body.password,
      clientInfo(request),
    );
    setSessionCookie(response, this.config, session.cookieValue);
    return { two_factor_enrolment: enrolment, csrf_token: session.csrfToken };
  }

  /** The invitee has an account: password and second factor, then signed in at the merchant. */
  @Post('accept-with-account')
  @HttpCode(200)
  @ConsolePreSession()
  async acceptWithAccount(
    @Body() body: AcceptWithAccountDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const { session, merchantId } = await this.existingAccount.accept(body, clientInfo(request));
    setSessionCookie(response, this.config, session.cookieValue);
    return { signed_in: true, merchant_id: merchantId, csrf_token: session.csrfToken };
  }
}
