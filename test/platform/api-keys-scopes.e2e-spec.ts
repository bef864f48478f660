import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import {
  ApiKeysService,
  ApiScope,
  IS_PUBLIC_ROUTE,
  Permission,
  REQUIRED_PERMISSIONS,
} from '@app/auth';
import { buildOpenApiDocument } from '../../apps/api/src/openapi';
import { TestApi, TestMerchant } from '../support/test-app';

interface Route {
  name: string;
  isPublic: boolean;
  permissions: Permission[] | undefined;
}

/** Every HTTP route of the built app, read from the controllers Nest registered. */
function routesOf(api: TestApi): Route[] {
  const reflector = api.app.get(Reflector);
  const routes: Route[] = [];
  for (const module of api.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const methodName of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[methodName];
        if (typeof handler !== 'function' || methodName === 'constructor') continue;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const targets = [handler, controller];
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        routes.push({
          name: `${method} ${controller.name}.${methodName}`,
          isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC_ROUTE, targets) === true,
          permissions: reflector.getAllAndOverride<Permission[]>(REQUIRED_PERMISSIONS, targets),
        });
      }
    }
  }
  return routes;
}

describe('API key scopes', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Scoped Shop' });
  });

  afterAll(() => api.close());

  /** A restricted key of the suite's merchant, as TestApi's helpers take it. */
  async function restrictedKey(scopes: ApiScope[]): Promise<TestMerchant> {
    const key = await api.app
      .get(ApiKeysService)
      .create({ merchantId: merchant.id, name: `Only ${scopes.join(', ')}`, scopes });
    expect(key.scopes).toEqual(scopes);
    return { ...merchant, apiKey: key.api_key, apiKeyId: key.id };
  }

  it('every route that is not @Public() declares the permission it needs (fail closed)', () => {
    const routes = routesOf(api);
    const authenticated = routes.filter((route) => !route.isPublic);
    // The walk sees the API's routes, not an empty or partial list.
    expect(authenticated.map((route) => route.name)).toEqual(
      expect.arrayContaining([
        'POST CheckoutSessionsController.create',
        'POST PayoutsController.create',
        'POST EventsController.resend',
        'GET ApiKeysController.list',
      ]),
    );
    expect(routes.some((route) => route.isPublic)).toBe(true);
    const undeclared = authenticated.filter((route) => !route.permissions?.length);
    expect(undeclared.map((route) => route.name)).toEqual([]);
  });

  it('documents 403 insufficient_scope with its scope on every operation of the OpenAPI document', () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(api.app)));
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { responses: Record<string, never> }>).map(
        ([method, operation]) => ({
          name: `${method} ${path}`,
          forbidden: operation.responses['403'],
        }),
      ),
    );
    expect(operations.length).toBeGreaterThan(20);
    const undocumented = operations.filter(
      ({ forbidden }) =>
        !(forbidden as { content?: Record<string, { examples?: object }> } | undefined)?.content?.[
          'application/json'
        ]?.examples?.['insufficient_scope' as never],
    );
    expect(undocumented.map((operation) => operation.name)).toEqual([]);
    const createPayout = document.paths['/v1/payouts'].post.responses['403'];
    expect(createPayout.description).toContain('`payouts:write`');
    expect(
      createPayout.content['application/json'].examples.insufficient_scope.value.error,
    ).toEqual({
      type: 'permission_error',
      code: 'insufficient_scope',
      message: 'This API key does not have the scope payouts:write.',
      request_id: expect.any(String),
    });
    // The other reason for a 403 on that operation (a direct account's sub-merchant header) stays.
    expect(createPayout.content['application/json'].examples.permission_denied).toBeDefined();
  });

  it('lets a restricted key do what its scopes allow', async () => {
    const reader = await restrictedKey(['checkout_sessions:read']);
    await api.get('/v1/checkout/sessions', reader).expect(200);
    await api.get('/v1/unmatched-transfers', reader).expect(200);
    await api.get('/v1/networks', reader).expect(200);
  });

  it('refuses a restricted key outside its scopes with 403 insufficient_scope, before reading the body', async () => {
    const reader = await restrictedKey(['checkout_sessions:read']);
    // An empty body would be a 400; the scope is checked first, so nothing is learnt or written.
    const refused = await api
      .post('/v1/payouts', reader, {}, { 'Idempotency-Key': 'scope-test-1' })
      .expect(403);
    expect(refused.body).toEqual({
      error: {
        type: 'permission_error',
        code: 'insufficient_scope',
        message: 'This API key does not have the scope payouts:write.',
        request_id: refused.headers['request-id'],
      },
    });
    const read = await api.get('/v1/payouts', reader).expect(403);
    expect(read.body.error.message).toBe('This API key does not have the scope payouts:read.');
    await api.get('/v1/balances', reader).expect(403);
    await api.post('/v1/checkout/sessions', reader, {}).expect(403);
    await api.get('/v1/webhook-endpoints', reader).expect(403);
    await api.get('/v1/events', reader).expect(403);
  });

  it('grants read with write, and any-of permissions to the API scope among them', async () => {
    const payer = await restrictedKey(['payouts:write']);
    await api.get('/v1/payouts', payer).expect(200);
    // Networks: any of checkout_sessions:read and payouts:read.
    await api.get('/v1/networks', payer).expect(200);
    await api.get('/v1/refunds', payer).expect(403);
    // Resending an event: webhook_endpoints:write for keys (webhook_deliveries:resend is the
    // console's), so the message names only the scope a key can hold.
    const resend = await api
      .post('/v1/events/evt_none/resend', await restrictedKey(['events:read']), {})
      .expect(403);
    expect(resend.body.error.message).toBe(
      'This API key does not have the scope webhook_endpoints:write.',
    );
    const hooks = await restrictedKey(['webhook_endpoints:write']);
    await api.post('/v1/events/evt_none/resend', hooks, {}).expect(404);
  });

  it('keeps console-only permissions away from keys, full secret keys included', async () => {
    for (const key of [merchant, await restrictedKey(['checkout_sessions:read'])]) {
      const response = await api.get('/console/api/api-keys', key).expect(403);
      expect(response.body.error.code).toBe('insufficient_scope');
      await api.post('/console/api/api-keys', key, {}).expect(403);
    }
    expect(await api.count('api_keys', 'merchant_id = $1 AND scopes IS NULL', [merchant.id])).toBe(
      1,
    );
  });

  it('a full secret key reaches what restricted keys were refused', async () => {
    for (const path of ['/v1/payouts', '/v1/refunds', '/v1/balances', '/v1/events']) {
      await api.get(path, merchant).expect(200);
    }
  });
});
