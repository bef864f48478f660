import { Controller, Delete, Get, HttpCode, Param, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { ApiException, ErrorCode } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { clientInfo } from '../http/client-info';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { ConsoleSessionsRepository } from '../sessions/console-sessions.repository';

/** Settings → Security: the user's own live sessions, and ending one of them. */
@ApiExcludeController()
@Controller('console/api/security/sessions')
export class SecuritySessionsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: ConsoleSessionsRepository,
  ) {}

  @Get()
  @ConsoleAuth()
  async list(@CurrentConsoleSession() current: ConsoleSession) {
    const sessions = await this.sessions.listActive(current.userId);
    return sessions.map((session) => ({
      id: session.id,
      current: session.id === current.id,
      created_at: session.createdAt.toISOString(),
      last_seen_at: session.lastSeenAt.toISOString(),
      ip: session.ip,
      user_agent: session.userAgent,
    }));
  }

  @Delete(':id')
  @HttpCode(204)
  @ConsoleAuth()
  async revoke(
    @Param('id') id: string,
    @CurrentConsoleSession() current: ConsoleSession,
    @Req() request: Request,
  ): Promise<void> {
    const client = clientInfo(request);
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.sessions.revoke(manager, current.userId, id))) {
        throw new ApiException(ErrorCode.ResourceMissing, `No active session '${id}'.`, 'id');
      }
      await recordAudit(manager, {
        merchantId: current.merchantId,
        actorType: current.realm === 'operator' ? 'operator' : 'console_user',
        actorId: current.userId,
        action: 'session.revoked',
        targetType: 'console_session',
        // The first characters name it in the log without making the id hash public.
        targetId: id.slice(0, 12),
        ip: client.ip,
        userAgent: client.userAgent,
      });
    });
  }
}
