import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { Request, Response } from 'express';
import { ConsoleAuth, CurrentConsoleSession } from '../sessions/console-access';
import { ConsoleSession } from '../sessions/console-session';
import { AuditLogReader } from './audit-log.reader';

const toStrictInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;

export class AuditLogQueryDto {
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt({ message: 'limit must be a whole number from 1 to 100.' })
  @Min(1, { message: 'limit must be a whole number from 1 to 100.' })
  @Max(100, { message: 'limit must be a whole number from 1 to 100.' })
  limit?: number;

  @IsOptional()
  @IsString({ message: 'starting_after must be a single string.' })
  @Length(1, 100, { message: 'starting_after must be 1 to 100 characters.' })
  starting_after?: string;
}

/** A bare array, newest first; `Link: <...>; rel="next"` while there is more (docs/pagination.md). */
@ApiExcludeController()
@Controller('console/api/audit-log')
export class AuditLogController {
  constructor(private readonly reader: AuditLogReader) {}

  @Get()
  @ConsoleAuth({ permission: 'audit_log:read' })
  async list(
    @Query() query: AuditLogQueryDto,
    @CurrentConsoleSession() session: ConsoleSession,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    const limit = query.limit ?? 20;
    const page = await this.reader.page(session.merchantId!, limit, query.starting_after);
    if (page.nextCursor) {
      const params = new URLSearchParams({ limit: String(limit), starting_after: page.nextCursor });
      response.setHeader('Link', `<${request.baseUrl}${request.path}?${params}>; rel="next"`);
    }
    return page.entries;
  }
}
