import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CODE_SPECS, ErrorCode, ErrorResponseDto } from '@app/common';
import { isApiScope, Permission } from './permissions';

export const REQUIRED_PERMISSIONS = 'auth:requiredPermissions';

/**
 * The permission a route needs, checked by PermissionGuard for every authenticated caller: an API
 * key's scopes or a console user's role. Several permissions mean any one of them suffices (an
 * API scope for keys and a console-only permission for people, e.g. resending a delivery).
 * Every route that is not @Public() declares one; a route without is refused (fail closed).
 *
 * Also documents the 403 `insufficient_scope` answer with the scope in the OpenAPI document,
 * merged with the operation's other 403 reasons.
 */
export function RequiresPermission(...permissions: [Permission, ...Permission[]]) {
  const scopes = permissions.filter(isApiScope);
  return applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    ...(scopes.length ? [documentInsufficientScope(scopes)] : []),
  );
}

export function insufficientScopeMessage(scopes: readonly string[]): string {
  return `This API key does not have the scope ${scopes.join(' or ')}.`;
}

function documentInsufficientScope(scopes: readonly string[]) {
  const code = ErrorCode.InsufficientScope;
  return ApiResponse({
    status: 403,
    description:
      `Needs the scope ${scopes.map((scope) => `\`${scope}\``).join(' or ')}: a restricted key ` +
      `without it gets \`${code}\`.`,
    type: ErrorResponseDto,
    examples: {
      [code]: {
        summary: code,
        value: {
          error: {
            type: ERROR_CODE_SPECS[code].type,
            code,
            message: insufficientScopeMessage(scopes),
            request_id: 'req_5kJ2bQ9x0aZ1cD3eF4gH6i',
          },
        },
      },
    },
  });
}
