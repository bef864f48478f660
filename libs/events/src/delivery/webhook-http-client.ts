import { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { addressRefusal, AddressPolicy } from './address-policy';
import { ipLiteralHost, resolveAllAddresses, Resolver } from './webhook-url';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface WebhookResponse {
  /** null when no HTTP response arrived (connection error, timeout before the headers, refused address). */
  statusCode: number | null;
  /** Whole milliseconds from the start to the end of the response, or to the error. */
  latencyMs: number;
  /** First 500 characters of the response body, or null when it had none. */
  responseExcerpt: string | null;
  /** Retry-After as seconds from now (delta seconds or HTTP-date); the caller decides what to do with it. */
  retryAfterSeconds: number | null;
  /** Short reason the attempt failed, e.g. "timed out after 15000 ms"; null when a response ended normally. */
  error: string | null;
}

export const WEBHOOK_USER_AGENT = 'StablecoinPayments-Webhooks/1.0';
export const RESPONSE_EXCERPT_CHARACTERS = 500;
// A receiver streaming a large or endless body must not hold the worker: stop reading past this.
export const MAX_RESPONSE_BYTES = 4096;
// High enough for one worker to deliver hundreds of events a second to one receiver.
const MAX_SOCKETS_PER_HOST = 64;
// Below the 5 s keep-alive timeout of Node and most servers.
const IDLE_SOCKET_TIMEOUT_MS = 4_000;
const MAX_ERROR_LENGTH = 200;
const PREMATURE_END = 'connection closed before the response ended';

const ADDRESS_NOT_ALLOWED = 'ERR_WEBHOOK_ADDRESS_NOT_ALLOWED';
const UNRESOLVED = 'ENOTFOUND';

/**
 * One webhook delivery attempt over node:http(s), safe against server-side request forgery: the
 * address checked is the address connected to, at every new connection, and redirects are never
 * followed.
 */
export class WebhookHttpClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolve: Resolver = resolveAllAddresses,
  ) {
    // lifo keeps the busiest sockets warm and lets idle ones time out on the receiver's side.
    // An idle socket is closed by us before a receiver's usual 5 s keep-alive timeout closes it
    // under us (Node 20 ignores the Keep-Alive header's timeout): a request written to a socket
    // the receiver just closed fails with a reset although the receiver is fine.
    const agentOptions = {
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_HOST,
      scheduling: 'lifo' as const,
      timeout: IDLE_SOCKET_TIMEOUT_MS,
    };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  /** Never throws: every failure is described in the returned `error`. */
  async post(request: WebhookRequest): Promise<WebhookResponse> {
    const startedAt = performance.now();
    try {
      const url = new URL(request.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return failure(startedAt, `unsupported url scheme ${url.protocol}`);
      }
      // Node connects to IP literals without calling lookup, so they are checked here instead.
      const literal = ipLiteralHost(url);
      const refusal = literal === null ? null : addressRefusal(literal, this.policy);
      if (refusal !== null) return failure(startedAt, `address not allowed: ${refusal}`);
      const response = await this.send(url, request, startedAt);
      // Node's documented pattern: a reused keep-alive socket closed by the receiver as we wrote
      // is not the receiver failing; send once more on a new connection.
      if (response.staleSocket) return await this.send(url, request, startedAt);
      return response;
    } catch (error) {
      return failure(startedAt, describeError(error));
    }
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(
    url: URL,
    request: WebhookRequest,
    startedAt: number,
  ): Promise<WebhookResponse & { staleSocket?: boolean }> {
    return new Promise((resolve) => {
      let statusCode: number | null = null;
      let retryAfterSeconds: number | null = null;
      const chunks: Buffer[] = [];
      let bodyBytes = 0;
      let settled = false;

      const isHttps = url.protocol === 'https:';
      const outgoing = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        lookup: this.pinnedLookup,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          'content-length': String(Buffer.byteLength(request.body)),
        },
      });
      // Created only once request() returned: it throws synchronously on a malformed header.
      const timer = setTimeout(() => {
        settle(`timed out after ${request.timeoutMs} ms`);
        outgoing.destroy();
      }, request.timeoutMs);

      const settle = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          statusCode,
          latencyMs: elapsedSince(startedAt),
          responseExcerpt: excerpt(chunks),
          retryAfterSeconds,
          error,
        });
      };

      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (
          !settled &&
          statusCode === null &&
          outgoing.reusedSocket &&
          error.code === 'ECONNRESET'
        ) {
          settled = true;
          clearTimeout(timer);
          resolve({ ...failure(startedAt, describeError(error)), staleSocket: true });
          return;
        }
        settle(describeError(error));
      });
      // No 'redirect' handling exists in node:http: a 3xx arrives here like any other status.
      outgoing.on('response', (response) => {
        statusCode = response.statusCode ?? null;
        retryAfterSeconds = parseRetryAfter(response.headers['retry-after']);
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          bodyBytes += chunk.length;
          if (bodyBytes >= MAX_RESPONSE_BYTES) {
            settle(null);
            response.destroy();
          }
        });
        response.on('end', () => settle(null));
        // The status already arrived: what failed is only the rest of the body.
        response.on('error', () => settle(PREMATURE_END));
        response.on('close', () => settle(PREMATURE_END));
      });
      outgoing.end(request.body);
    });
  }

  /**
   * Resolves the host and refuses the connection if any of its addresses is not allowed, so the
   * address checked is the one connected to, even when DNS changed since the url was validated.
   * net calls it with `all: true` when it tries several addresses (autoSelectFamily, the default
   * since Node 20), else wants a single address.
   */
  private readonly pinnedLookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    this.allowedAddresses(hostname, family ?? 0).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };

  private async allowedAddresses(hostname: string, family: number): Promise<LookupAddress[]> {
    let resolved: string[];
    try {
      resolved = await this.resolve(hostname);
    } catch {
      throw codedError('could not resolve host', UNRESOLVED);
    }
    if (resolved.some((ip) => isIP(ip) === 0)) {
      throw codedError('could not resolve host', UNRESOLVED);
    }
    // Every address, not only the one returned: net may fall back to any of them. The merchant
    // reads this error: naming the address would tell them what our resolver answers for a name
    // they chose (a DNS oracle of our internal network).
    if (resolved.some((ip) => addressRefusal(ip, this.policy) !== null)) {
      throw codedError(
        'address not allowed: host resolves to a private or reserved address',
        ADDRESS_NOT_ALLOWED,
      );
    }
    const addresses = resolved
      .map((address) => ({ address, family: isIP(address) }))
      .filter((address) => family === 0 || address.family === family);
    if (addresses.length === 0) throw codedError('could not resolve host', UNRESOLVED);
    return addresses;
  }
}

/** Retry-After in seconds from `now`: delta seconds or an HTTP-date (past dates give 0). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  // Every HTTP-date form names its month; this keeps Date.parse from reading "-5" as a year.
  if (!/[a-z]/i.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function excerpt(chunks: Buffer[]): string | null {
  if (chunks.length === 0) return null;
  // 500 characters take at most 2,000 bytes, so a character cut at the 4 KB limit never shows.
  const text = Buffer.concat(chunks).toString('utf8');
  const characters = Array.from(text.slice(0, RESPONSE_EXCERPT_CHARACTERS * 2));
  return characters.slice(0, RESPONSE_EXCERPT_CHARACTERS).join('') || null;
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'could not resolve host',
  EAI_AGAIN: 'could not resolve host',
};

function describeError(error: unknown): string {
  // Duck-typed: errors from node internals fail `instanceof Error` inside jest's sandbox.
  if (typeof error !== 'object' || error === null || !('message' in error)) {
    return 'delivery failed';
  }
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === ADDRESS_NOT_ALLOWED) return message;
  // net reports a failure to reach every address of a host as an AggregateError carrying the
  // first error's code.
  const description =
    code === undefined ? message : (ERROR_DESCRIPTIONS[code] ?? `${code}: ${message}`);
  return description.slice(0, MAX_ERROR_LENGTH);
}

function codedError(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

function failure(startedAt: number, error: string): WebhookResponse {
  return {
    statusCode: null,
    latencyMs: elapsedSince(startedAt),
    responseExcerpt: null,
    retryAfterSeconds: null,
    error,
  };
}

function elapsedSince(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}
