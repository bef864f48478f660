import request from 'supertest';
import { API_VERSION } from '@app/common';
import { buildOpenApiDocument } from '../../apps/api/src/openapi';
import { TestApi, TestMerchant } from '../support/test-app';

// docs/versioning.md: every answer names the /v1 contract revision it was served under.
describe('API-Version header', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant();
  });

  afterAll(() => api.close());

  it('is a date', () => {
    expect(API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('is on a successful answer, an authentication error, an unknown route and a bad body', async () => {
    const answers = await Promise.all([
      api.get('/v1/checkout/sessions', merchant).expect(200),
      request(api.http).get('/v1/checkout/sessions').expect(401),
      request(api.http).get('/v1/no-such-route').expect(404),
      request(api.http).get('/health/live').expect(200),
      request(api.http)
        .post('/v1/checkout/sessions')
        .set('Authorization', `Bearer ${merchant.apiKey}`)
        .set('Content-Type', 'application/json')
        .send('{not json')
        .expect(400),
    ]);
    for (const answer of answers) {
      expect(answer.headers['api-version']).toBe(API_VERSION);
      expect(answer.headers['request-id']).toMatch(/^req_/);
    }
  });

  it('is described in the OpenAPI document with its current value', () => {
    const description = buildOpenApiDocument(api.app).info.description ?? '';
    expect(description).toContain('API-Version');
    expect(description).toContain(API_VERSION);
  });
});
