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
 * The routes allowed a larger JSON body, each with its limit: a batch of 1,000 payouts is about
 * 150 kB. Every other route keeps JSON_BODY_LIMIT.
 */
export const LARGE_JSON_BODY_ROUTES: Readonly<Record<string, string>> = {
  'POST /v1/payout-batches': '256kb',
  // The console's twin (the same items, plus a code and a key).
  'POST /console/api/payout-batches': '256kb',
};

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
  app.use(largeJsonBodies());
  // Skips a body a parser above already read (body-parser marks the request).
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: true }));
  app.use(translateBodyParserErrors);
  // Shutdown is main.ts's: it drains HTTP before Nest closes queues and the database.
}

/** Parses the body of a LARGE_JSON_BODY_ROUTES request with its own limit, and nothing else. */
function largeJsonBodies() {
  const parsers = new Map(
    Object.entries(LARGE_JSON_BODY_ROUTES).map(([route, limit]) => [
      route,
      express.json({ limit, strict: true }),
    ]),
  );
  return (request: Request, response: Response, next: NextFunction): void => {
    // Express routes match a trailing slash too: so does the limit.
    const path = request.path.length > 1 ? request.path.replace(/\/$/, '') : request.path;
    const parser = parsers.get(`${request.method} ${path}`);
    if (parser) parser(request, response, next);
    else next();
  };
}

/** body-parser errors become API errors here, while their `type` still says what went wrong. */
function translateBodyParserErrors(
  error: { type?: string; limit?: number } | undefined,
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
        new ApiException(
          ErrorCode.RequestTooLarge,
          `The request body is larger than ${Math.round((error.limit ?? 65_536) / 1024)} kB.`,
        ),
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return next(new ApiException(ErrorCode.UnsupportedMediaType, 'Send the body as UTF-8 JSON.'));
    default:
      return next(error);
  }
}
