import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiException } from '@app/common';
import { AuthenticatedMerchant } from './authenticated-merchant';
import { permissionsOfKey } from './api-key-scopes';
import { PermissionGuard } from './permission.guard';
import { ROLE_PERMISSIONS } from './permissions';
import { Public } from './public.decorator';
import { RequiresPermission } from './requires-permission.decorator';

@Controller('example')
class ExampleController {
  @Get('payouts')
  @RequiresPermission('payouts:write')
  createPayout(): void {}

  @Get('resend')
  @RequiresPermission('webhook_endpoints:write', 'webhook_deliveries:resend')
  resend(): void {}

  @Get('keys')
  @RequiresPermission('api_keys:write')
  createKey(): void {}

  @Get('health')
  @Public()
  health(): void {}

  @Get('forgotten')
  forgotten(): void {}
}

const keyCaller = (scopes: Parameters<typeof permissionsOfKey>[0]): AuthenticatedMerchant => ({
  merchantId: 'mer_1',
  kind: 'direct',
  name: 'Shop',
  logoUrl: null,
  livemode: false,
  apiKeyId: 'key_1',
  actor: { type: 'api_key', apiKeyId: 'key_1' },
  permissions: permissionsOfKey(scopes),
});

const personCaller = (role: 'viewer' | 'support' | 'developer'): AuthenticatedMerchant => ({
  ...keyCaller(null),
  apiKeyId: null,
  actor: { type: 'console_user', userId: 'usr_1', sessionId: 'ab', role },
  permissions: ROLE_PERMISSIONS[role],
});

function check(handler: keyof ExampleController, merchant?: AuthenticatedMerchant): boolean {
  const context = {
    getHandler: () => ExampleController.prototype[handler],
    getClass: () => ExampleController,
    switchToHttp: () => ({ getRequest: () => ({ merchant }) }),
  } as unknown as ExecutionContext;
  return new PermissionGuard(new Reflector()).canActivate(context);
}

function refusal(run: () => unknown): { code: string; message: string; param?: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiException) {
      return { code: error.code, message: error.message, param: error.param };
    }
    throw error;
  }
  throw new Error('not refused');
}

describe('PermissionGuard', () => {
  it('lets a caller holding the permission through', () => {
    expect(check('createPayout', keyCaller(null))).toBe(true);
    expect(check('createPayout', keyCaller(['payouts:write']))).toBe(true);
    expect(check('resend', personCaller('support'))).toBe(true);
    expect(check('health')).toBe(true);
  });

  it('refuses a key without the scope with insufficient_scope, no param', () => {
    expect(refusal(() => check('createPayout', keyCaller(['payouts:read'])))).toEqual({
      code: 'insufficient_scope',
      message: 'This API key does not have the scope payouts:write.',
      param: undefined,
    });
    expect(refusal(() => check('resend', keyCaller(['events:read']))).message).toBe(
      'This API key does not have the scope webhook_endpoints:write.',
    );
    expect(refusal(() => check('createKey', keyCaller(null))).code).toBe('insufficient_scope');
  });

  it('refuses a console role without the permission with permission_denied, naming the role', () => {
    expect(refusal(() => check('createPayout', personCaller('viewer')))).toEqual({
      code: 'permission_denied',
      message: 'Your role (viewer) does not allow payouts:write.',
      param: undefined,
    });
    expect(refusal(() => check('resend', personCaller('viewer'))).message).toBe(
      'Your role (viewer) does not allow webhook_endpoints:write or webhook_deliveries:resend.',
    );
  });

  it('fails closed on an authenticated route that declares no permission', () => {
    expect(() => check('forgotten', keyCaller(null))).toThrow(
      'ExampleController.forgotten declares no @RequiresPermission',
    );
  });
});
