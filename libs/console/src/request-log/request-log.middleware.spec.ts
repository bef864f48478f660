import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import type { AuthenticatedMerchant, AuthenticatedRequest } from '@app/auth';
import { RequestLogEntry } from './request-log-entry';
import {
  CLIENT_CLOSED_REQUEST,
  pathWithoutQuery,
  RequestLogMiddleware,
} from './request-log.middleware';
import type { RequestLogWriter } from './request-log.writer';

const merchant: AuthenticatedMerchant = {
  merchantId: 'mer_1',
  kind: 'direct',
  name: 'Shop',
  logoUrl: null,
  livemode: false,
  apiKeyId: 'key_1',
  actor: { type: 'api_key', apiKeyId: 'key_1' },
  permissions: new Set(),
};

type FakeResponse = EventEmitter & { statusCode: number; writableFinished: boolean };

/** Runs one request through the middleware; `end` emits what the response would. */
function run(url: string, end: (response: FakeResponse) => void) {
  const recorded: RequestLogEntry[] = [];
  const writer = { record: (entry: RequestLogEntry) => recorded.push(entry) };
  const middleware = new RequestLogMiddleware(writer as unknown as RequestLogWriter);
  const request = { method: 'GET', originalUrl: url, id: 'req_1' } as AuthenticatedRequest;
  const response: FakeResponse = Object.assign(new EventEmitter(), {
    statusCode: 200,
    writableFinished: false,
  });
  middleware.use(request, response as unknown as Response, () => undefined);
  // The guard authenticates after the middleware ran, as in the API.
  request.merchant = merchant;
  end(response);
  return recorded;
}

describe('RequestLogMiddleware', () => {
  it('records an answered request once, with its status and without its query string', () => {
    const recorded = run('/v1/payouts?destination=T9yD', (response) => {
      response.statusCode = 201;
      response.writableFinished = true;
      response.emit('finish');
      response.emit('close');
    });
    expect(recorded).toEqual([
      expect.objectContaining({ path: '/v1/payouts', status: 201, requestId: 'req_1' }),
    ]);
  });

  it('records a request whose client went away as 499, not the status it never received', () => {
    const recorded = run('/v1/events', (response) => response.emit('close'));
    expect(recorded).toEqual([expect.objectContaining({ status: CLIENT_CLOSED_REQUEST })]);
  });

  it('records nothing of the console API, health or metrics', () => {
    for (const url of ['/console/api/request-log?page_size=2', '/health/ready', '/metrics']) {
      expect(run(url, (response) => response.emit('finish'))).toEqual([]);
    }
  });
});

describe('pathWithoutQuery', () => {
  it('never keeps the query string', () => {
    expect(pathWithoutQuery('/v1/payouts?destination=T9yD&amount=10')).toBe('/v1/payouts');
    expect(pathWithoutQuery('/v1/events')).toBe('/v1/events');
    expect(pathWithoutQuery('/v1/x#frag')).toBe('/v1/x');
  });

  it('cuts an absurdly long path', () => {
    expect(pathWithoutQuery(`/v1/${'a'.repeat(5_000)}`)).toHaveLength(1_024);
  });
});
