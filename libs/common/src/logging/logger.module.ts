import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { IncomingMessage } from 'node:http';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { newRequestId } from '../http/request-id';
import { traceLogFields } from '../tracing/trace-context';

// Anything that could carry a secret is removed before a log line is written.
const SECRET_FIELDS = [
  'api_key',
  'apiKey',
  'mnemonic',
  'privateKey',
  'private_key',
  'secret',
  'xpub',
];

// Top-level and one level down (pino's wildcard does not match the top level itself).
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
];

/** pino-http options: request id from the Request-Id header, secrets redacted, headers never logged. */
export function pinoHttpOptions(config: Pick<AppConfig, 'logLevel'>): Options {
  return {
    level: config.logLevel,
    // The id is assigned before body parsing (see configureHttpApp); reuse it.
    genReqId: (request: IncomingMessage) =>
      (request as IncomingMessage & { id?: string }).id ?? newRequestId(),
    redact: { paths: REDACTED_LOG_PATHS, censor: '[REDACTED]' },
    // trace_id and span_id of the active span, when tracing is on (docs/operations.md, "Traces").
    mixin: traceLogFields,
    serializers: {
      req: (request: { id: string; method: string; url: string }) => ({
        id: request.id,
        method: request.method,
        url: request.url,
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
  };
}

/** Structured JSON logs (pino); every line of a request carries its request id. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ pinoHttp: pinoHttpOptions(config) }),
    }),
  ],
})
export class AppLoggerModule {}
