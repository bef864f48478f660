import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { configureHttpApp } from '@app/common';
import { AppModule } from './app.module';
import { buildOpenApiDocument, mountSwaggerUi } from './openapi';

/** Builds the API exactly as production runs it; tests call this too. */
export async function createApiApp(): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  configureHttpApp(app);
  mountSwaggerUi(app, buildOpenApiDocument(app));
  return app;
}
