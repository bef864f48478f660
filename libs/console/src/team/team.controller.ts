import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { clientInfo } from '../http/client-info';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { ChangeRoleDto, InviteMemberDto } from './team.dto';
import { TeamService } from './team.service';

type Actor = Parameters<TeamService['invite']>[0];

/** The guard's permission check guarantees a merchant and a role; this narrows the type. */
const actorOf = (session: ConsoleSession) => session as Actor;

@ApiExcludeController()
@Controller('console/api/team')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get()
  @ConsoleAuth({ permission: 'team:read' })
  async overview(@CurrentConsoleSession() session: ConsoleSession) {
    return this.team.overview(actorOf(session).merchantId);
  }

  @Post('invitations')
  @ConsoleAuth({ permission: 'team:write' })
  async invite(
    @Body() body: InviteMemberDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ) {
    return this.team.invite(
      actorOf(session),
      body.email,
      body.role,
      clientInfo(request),
      body.two_factor_code,
    );
  }

  @Patch('members/:userId')
  @HttpCode(204)
  @ConsoleAuth({ permission: 'team:write' })
  async changeRole(
    @Param('userId') userId: string,
    @Body() body: ChangeRoleDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ): Promise<void> {
    await this.team.changeRole(
      actorOf(session),
      userId,
      body.role,
      clientInfo(request),
      body.two_factor_code,
    );
  }

  @Delete('members/:userId')
  @HttpCode(204)
  @ConsoleAuth({ permission: 'team:write' })
  async remove(
    @Param('userId') userId: string,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ): Promise<void> {
    await this.team.remove(actorOf(session), userId, clientInfo(request));
  }

  @Delete('invitations/:id')
  @HttpCode(204)
  @ConsoleAuth({ permission: 'team:write' })
  async revokeInvitation(
    @Param('id') id: string,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
  ): Promise<void> {
    await this.team.revokeInvitation(actorOf(session), id, clientInfo(request));
  }
}
