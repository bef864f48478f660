// CPU the request log adds to one request in the API process: the middleware's closure, its two
// listeners, the entry and the push, with the writer's statement answered at once (no database).
// Usage: npx ts-node -r tsconfig-paths/register --transpile-only bench/request-log/middleware-cost.ts
import { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedMerchant, AuthenticatedRequest } from '@app/auth';
import { RequestLogMiddleware } from '../../libs/console/src/request-log/request-log.middleware';
import { RequestLogWriter } from '../../libs/console/src/request-log/request-log.writer';

const merchant: AuthenticatedMerchant = {
  merchantId: 'mer_1',
  kind: 'direct',
  name: 'Bench',
  logoUrl: null,
  livemode: false,
  apiKeyId: 'key_1',
  actor: { type: 'api_key', apiKeyId: 'key_1' },
  permissions: new Set(),
};

function oneRequest(middleware: RequestLogMiddleware, withLog: boolean): void {
  const response = Object.assign(new EventEmitter(), { statusCode: 200 });
  const request = {
    merchant,
    method: 'GET',
    originalUrl: '/v1/checkout/sessions/cs_3kTMd9Q2xLp8RvB1nY7cZa?expand=x',
    id: 'req_5kJ2bQ9x0aZ1cD3eF4gH6i',
  } as unknown as AuthenticatedRequest;
  const next: NextFunction = () => undefined;
  if (withLog) middleware.use(request, response as unknown as Response, next);
  response.emit('finish');
  response.emit('close');
}

async function main(): Promise<void> {
  const writer = new RequestLogWriter({ query: async () => undefined } as unknown as DataSource);
  const middleware = new RequestLogMiddleware(writer);
  const N = 1_000_000;
  const measure = async (withLog: boolean) => {
    const cpu = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      oneRequest(middleware, withLog);
      // Lets the writer's batches run as they would between requests.
      if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / N;
  };
  await measure(true); // warm-up
  const without = await measure(false);
  const withLog = await measure(true);
  console.log(
    `CPU per request: ${withLog.toFixed(2)} µs with the request log, ${without.toFixed(2)} µs ` +
      `without (the fake request alone): ${(withLog - without).toFixed(2)} µs added`,
  );
  await writer.onApplicationShutdown();
}

void main();
