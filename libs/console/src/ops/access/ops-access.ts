import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { OperatorSession, OperatorSessions } from './operator-sessions';

const OPS_ACCESS = 'ops:access';

interface OpsAccess {
  /** Routes that change anything (payout decisions, key revocation) are an admin's. */
  admin?: boolean;
}

type OpsRequest = Request & { operatorSession?: OperatorSession };

@Injectable()
export class OperatorSessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly operators: OperatorSessions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access =
      this.reflector.getAllAndOverride<OpsAccess | undefined>(OPS_ACCESS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? {};
    const request = context.switchToHttp().getRequest<OpsRequest>();
    request.operatorSession = await this.operators.resolve(request, { admin: access.admin });
    return true;
  }
}

/**
 * An operator API route. @Public() for the API's key guard: an operator's session never acts as
 * a merchant on /v1, so this guard, not that one, decides.
 */
export const OpsAuth = (access: OpsAccess = {}) =>
  applyDecorators(Public(), SetMetadata(OPS_ACCESS, access), UseGuards(OperatorSessionGuard));

export const CurrentOperator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OperatorSession => {
    const session = context.switchToHttp().getRequest<OpsRequest>().operatorSession;
    if (!session) throw new Error('CurrentOperator used on a route without @OpsAuth');
    return session;
  },
);
