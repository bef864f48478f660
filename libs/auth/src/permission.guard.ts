import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiException, ErrorCode } from '@app/common';
import { AuthenticatedMerchant } from './authenticated-merchant';
import { AuthenticatedRequest } from './current-merchant.decorator';
import { isApiScope, Permission } from './permissions';
import { IS_PUBLIC_ROUTE } from './public.decorator';
import { insufficientScopeMessage, REQUIRED_PERMISSIONS } from './requires-permission.decorator';
import { SENDS_MONEY } from './sends-money.decorator';

/**
 * Runs after authentication: the caller must hold one of the route's @RequiresPermission
 * permissions, and a route that @SendsMoney is never called with a console session. Fails closed: an authenticated route that declares none is a programming error and
 * is refused for everyone (a test walks every route so none ships that way).
 */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_ROUTE, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission[] | undefined>(
      REQUIRED_PERMISSIONS,
      targets,
    );
    const route = `${context.getClass().name}.${context.getHandler().name}`;
    if (!required?.length) throw new Error(`${route} declares no @RequiresPermission`);
    const merchant = context.switchToHttp().getRequest<AuthenticatedRequest>().merchant;
    if (!merchant) throw new Error(`${route} reached the permission check unauthenticated`);
    if (!required.some((permission) => merchant.permissions.has(permission))) {
      throw refusal(merchant, required);
    }
    const consoleRoute = this.reflector.get<string | undefined>(SENDS_MONEY, context.getHandler());
    if (consoleRoute !== undefined && merchant.actor.type === 'console_user') {
      throw new ApiException(
        ErrorCode.PermissionDenied,
        consoleRoute
          ? `Money is sent from the console with a fresh two-factor code (${consoleRoute}).`
          : 'Money is not sent with a console session; use an API key.',
      );
    }
    return true;
  }
}

function refusal(merchant: AuthenticatedMerchant, required: readonly Permission[]): ApiException {
  if (merchant.actor.type === 'api_key') {
    const scopes = required.filter(isApiScope);
    return new ApiException(
      ErrorCode.InsufficientScope,
      scopes.length
        ? insufficientScopeMessage(scopes)
        : `API keys cannot do this; it needs the console permission ${required.join(' or ')}.`,
    );
  }
  return new ApiException(
    ErrorCode.PermissionDenied,
    `Your role (${merchant.actor.role}) does not allow ${required.join(' or ')}.`,
  );
}
