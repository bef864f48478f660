import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { buildOpenApiDocument } from '../../apps/api/src/openapi';
import { TestApi } from '../support/test-app';

describe('OpenAPI document', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(() => api.close());

  it('matches the committed docs/openapi.json (run `npm run openapi` after changing the API)', () => {
    const committed = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'),
    );
    expect(JSON.parse(JSON.stringify(buildOpenApiDocument(api.app)))).toEqual(committed);
  });

  it('is served at /docs-json with Swagger UI at /docs, without a key', async () => {
    const json = await request(api.http).get('/docs-json').expect(200);
    expect(json.body.openapi).toMatch(/^3\./);
    expect(Object.keys(json.body.paths)).toEqual(
      expect.arrayContaining(['/v1/checkout/sessions', '/v1/checkout/sessions/{id}']),
    );
    const ui = await request(api.http).get('/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger-ui');
  });

  it('documents auth, every operation id and the error envelope', () => {
    const document = buildOpenApiDocument(api.app);
    expect(document.components?.securitySchemes?.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    const ids = operations.map((operation) => (operation as { operationId: string }).operationId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'createCheckoutSession',
        'listCheckoutSessions',
        'getCheckoutSession',
      ]),
    );
    for (const operation of operations as Array<{
      responses: Record<string, unknown>;
      security?: unknown;
    }>) {
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation.responses['401']).toBeDefined();
    }
    expect(document.components?.schemas?.ErrorResponse).toBeDefined();
  });

  it('names schemas as a generated client shows them: no `Dto`, and every $ref resolves', () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(api.app)));
    const names = Object.keys(document.components.schemas);
    expect(names.filter((name) => /dto$/i.test(name))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['CheckoutSession', 'CreateCheckoutSessionRequest', 'Payout']),
    );
    const refs = JSON.stringify(document).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    const unresolved = refs
      .map((ref) => ref.slice('"#/components/schemas/'.length, -1))
      .filter((name) => !names.includes(name));
    expect(unresolved).toEqual([]);
  });

  it('documents payouts: a required Idempotency-Key, and every field present, null where empty', () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(api.app)));
    const create = document.paths['/v1/payouts'].post;
    expect(create.operationId).toBe('createPayout');
    expect(create.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }),
    );
    expect(document.paths['/v1/payouts'].get.operationId).toBe('listPayouts');
    expect(document.paths['/v1/payouts/{id}'].get.operationId).toBe('getPayout');
    const payout = document.components.schemas.Payout;
    expect(payout.required).toEqual(Object.keys(payout.properties));
    const nullable = Object.keys(payout.properties).filter(
      (name) => payout.properties[name].nullable,
    );
    expect(nullable.sort()).toEqual(
      [
        'description',
        'metadata',
        'tx_hash',
        'error_reason',
        'pending_reason',
        'reviewed_by',
        'reviewed_at',
        'completed_at',
        'sub_merchant_code',
        'batch_id',
      ].sort(),
    );
  });
});
