import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Public } from '@app/auth';
import { CONSOLE_ACCESS, ConsoleAccess, ConsoleRequest } from './console-access.metadata';
import { ConsoleSession } from './console-session';
import { ConsoleSessionGuard } from './console-session.guard';
import { PreSessionGuard } from './pre-session.guard';

/**
 * A console API route that needs a session. @Public() for the API's key guard, which would
 * otherwise ask for a key: the session guard decides instead, CSRF included.
 */
export const ConsoleAuth = (access: ConsoleAccess = {}) =>
  applyDecorators(Public(), SetMetadata(CONSOLE_ACCESS, access), UseGuards(ConsoleSessionGuard));

/** A console API route used before there is a session (sign-in, invitations). */
export const ConsolePreSession = () => applyDecorators(Public(), UseGuards(PreSessionGuard));

/** The session the ConsoleSessionGuard found for this request. */
export const CurrentConsoleSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ConsoleSession => {
    const session = context.switchToHttp().getRequest<ConsoleRequest>().consoleSession;
    if (!session) throw new Error('CurrentConsoleSession used on a route without @ConsoleAuth');
    return session;
  },
);
