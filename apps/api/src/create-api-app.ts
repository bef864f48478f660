import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { Logger } from 'nestjs-pino';
import { configureHttpApp } from '@app/common';
import { AppModule } from './app.module';
import { buildOpenApiDocument, mountSwaggerUi } from './openapi';

/** Builds the API exactly as production runs it; tests call this too. */
export async function createApiApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, caseSensitiveHttp(), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  configureHttpApp(app);
  mountSwaggerUi(app, buildOpenApiDocument(app));
  return app;
}

/**
 * Express matches paths case-insensitively by default, while everything that decides by path
 * (the hosted page's per-address limit, a proxy's or WAF's rules) compares exactly: `/CHECKOUT/..`
 * reached the page unlimited. One spelling per route closes that class of gap (docs/rate-limits.md).
 * Set on the instance before Nest's adapter wraps it: Express reads the setting once, when its
 * router is created, and the adapter's constructor creates it.
 */
function caseSensitiveHttp(): ExpressAdapter {
  const http = express();
  http.set('case sensitive routing', true);
  return new ExpressAdapter(http);
}
