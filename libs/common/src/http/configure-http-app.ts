import type { INestApplication } from '@nestjs/common';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import { refuseBadPercentEncoding } from './percent-encoding';
import { API_VERSION, API_VERSION_HEADER } from './api-version';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';

export const JSON_BODY_LIMIT = '64kb';

/**
 * Express-level setup shared by main.ts and the tests, so both serve exactly the same app.
 * The request id is assigned first, so even a malformed body gets a Request-Id in its error (and
 * an API-Version, docs/versioning.md).
 */
export function configureHttpApp(app: INestApplication): void {
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.disable('x-powered-by');
  // API answers are live state: a hash of every body on every response buys no caching a client
  // should rely on (the hosted page's assets set their own ETag). docs/decisions.md.
  http.disable('etag');
  // Which peers may name the client in X-Forwarded-For: rate limits count per client address.
  http.set('trust proxy', app.get<AppConfig>(APP_CONFIG).trustProxy);
  app.use((request: Request & { id?: string }, response: Response, next: NextFunction) => {
    request.id = newRequestId();
    response.setHeader(REQUEST_ID_HEADER, request.id);
    response.setHeader(API_VERSION_HEADER, API_VERSION);
    next();
  });
  app.use(refuseBadPercentEncoding);
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: true }));
  app.use(translateBodyParserErrors);
  // Shutdown is main.ts's: it drains HTTP before Nest closes queues and the database.
}

/** body-parser errors become API errors here, while their `type` still says what went wrong. */
function translateBodyParserErrors(
  error: { type?: string } | undefined,
  _request: Request,
  _response: Response,
  next: NextFunction,
): void {
  switch (error?.type) {
    case 'entity.parse.failed':
      return next(
        new ApiException(ErrorCode.ParameterInvalid, 'The request body is not valid JSON.'),
      );
    case 'entity.too.large':
      return next(
        new ApiException(ErrorCode.RequestTooLarge, 'The request body is larger than 64 kB.'),
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return next(new ApiException(ErrorCode.UnsupportedMediaType, 'Send the body as UTF-8 JSON.'));
    default:
      return next(error);
  }
}
