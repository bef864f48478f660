import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { newRequestId } from '../http/request-id';

// Anything that could carry a secret is removed before a log line is written.
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  '*.api_key',
  '*.apiKey',
  '*.mnemonic',
  '*.privateKey',
  '*.private_key',
  '*.secret',
  '*.xpub',
];

/** Structured JSON logs (pino); every line of a request carries its request id. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logLevel,
          // The id is assigned before body parsing (see configureHttpApp); reuse it.
          genReqId: (request: IncomingMessage) =>
            (request as IncomingMessage & { id?: string }).id ?? newRequestId(),
          redact: { paths: REDACTED_LOG_PATHS, censor: '[REDACTED]' },
          customAttributeKeys: { reqId: 'request_id' },
          serializers: {
            req: (request: { id: string; method: string; url: string }) => ({
              id: request.id,
              method: request.method,
              url: request.url,
            }),
            res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
          },
        },
      }),
    }),
  ],
})
export class AppLoggerModule {}
