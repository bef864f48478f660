import type { NextFunction, Request, Response } from 'express';
import { ApiException } from '../errors/api.exception';
import { ErrorCode } from '../errors/error-code';
import type { InputProblem } from './storable-input';

const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
// A run of escapes is quoted in the message up to this many characters: the input may be huge.
const QUOTE_LENGTH = 24;

/** What is wrong with the percent-encoding of `raw`, or null when it decodes (UTF-8, RFC 3986). */
export function describeBadEncoding(raw: string): string | null {
  const malformed = MALFORMED_ESCAPE.exec(raw);
  if (malformed) {
    const escape = raw.slice(malformed.index, malformed.index + 3);
    return `'${escape}' is not a % followed by two hexadecimal digits`;
  }
  for (const [run] of raw.matchAll(ESCAPE_RUN)) {
    try {
      decodeURIComponent(run);
    } catch {
      const quoted = run.length > QUOTE_LENGTH ? `${run.slice(0, QUOTE_LENGTH)}...` : run;
      return `the bytes ${quoted} are not UTF-8`;
    }
  }
  return null;
}

/** The raw (still encoded) path parameters of `path` if it matches the route `pattern`. */
function matchRoute(pattern: string, path: string): Map<string, string> | null {
  // Express ignores a trailing slash and letter case, as here.
  const wanted = pattern.replace(/(.)\/$/, '$1').split('/');
  const given = path.replace(/(.)\/$/, '$1').split('/');
  if (wanted.length !== given.length) return null;
  const params = new Map<string, string>();
  for (const [index, segment] of wanted.entries()) {
    if (segment.startsWith(':') && given[index] !== '') params.set(segment.slice(1), given[index]);
    else if (segment.toLowerCase() !== given[index].toLowerCase()) return null;
  }
  return params;
}

/**
 * The path parameter of the first route (in `routes` order, as Express tries them) that `path`
 * matches and that is not valid percent-encoding; null when none does.
 */
export function findBadPathEncoding(path: string, routes: string[]): InputProblem | null {
  for (const route of routes) {
    const params = matchRoute(route, path);
    if (!params) continue;
    for (const [name, raw] of params) {
      const what = describeBadEncoding(raw);
      if (what) return { param: name, message: `${name} is not valid percent-encoding: ${what}.` };
    }
  }
  return null;
}

/** The first query parameter (`a=1&b=2`, before decoding) whose name or value does not decode. */
export function findBadQueryEncoding(query: string): InputProblem | null {
  for (const pair of query.split('&')) {
    const [key, value = ''] = pair.split(/=(.*)/s);
    const keyProblem = describeBadEncoding(key);
    if (keyProblem) {
      return {
        param: key,
        message: `The query parameter name ${key} is not valid percent-encoding: ${keyProblem}.`,
      };
    }
    const valueProblem = describeBadEncoding(value);
    if (valueProblem) {
      const name = decodeURIComponent(key.replace(/\+/g, ' '));
      return { param: name, message: `${name} is not valid percent-encoding: ${valueProblem}.` };
    }
  }
  return null;
}

/**
 * Bad percent-encoding is a 400 naming the parameter. Without this, Express answers a path with a
 * 400 that names none ("Failed to decode param"), and its query parser silently keeps `%ZZ` as
 * text and turns undecodable bytes into U+FFFD, so the API would search for what was not sent.
 * A middleware, before routing: Express decodes path parameters while it matches routes.
 */
export function refuseBadPercentEncoding(
  request: Request,
  _response: Response,
  next: NextFunction,
): void {
  if (!request.url.includes('%')) return next();
  const problem = findPathProblem(request) ?? findQueryProblem(request.url);
  if (!problem) return next();
  next(new ApiException(ErrorCode.ParameterInvalid, problem.message, problem.param));
}

function findPathProblem(request: Request): InputProblem | null {
  const what = describeBadEncoding(request.path);
  if (!what) return null;
  const routes = request.app.router.stack.flatMap(({ route }) =>
    typeof route?.path === 'string' ? [route.path] : [],
  );
  // Outside every route's parameters still a 400, as Express (a catch-all route decodes all).
  return (
    findBadPathEncoding(request.path, routes) ?? {
      message: `The path is not valid percent-encoding: ${what}.`,
    }
  );
}

function findQueryProblem(url: string): InputProblem | null {
  const start = url.indexOf('?');
  return start >= 0 ? findBadQueryEncoding(url.slice(start + 1)) : null;
}
