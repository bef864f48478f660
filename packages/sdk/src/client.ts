import createClient from 'openapi-fetch';
import type {
  Client,
  ClientPathsWithMethod,
  FetchResponse,
  MaybeOptionalInit,
} from 'openapi-fetch';
import { PaymentsApiError } from './errors';
import type { paths } from './generated/openapi';
import { parseNextLink } from './pagination';
import { DEFAULT_RETRY_POLICY, Fetch, retryingFetch, RetryPolicy } from './retry';

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const SUB_MERCHANT_HEADER = 'X-Sub-Merchant-Code';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export interface PaymentsClientOptions {
  /** `sk_test_…` (sandbox) or `sk_live_…`. */
  apiKey: string;
  /** Where the API answers, without `/v1` (default http://localhost:3000). */
  baseUrl?: string;
  /** PSP accounts: act for this sub-merchant (`X-Sub-Merchant-Code` on every request). */
  subMerchantCode?: string;
  /** Attempts per request, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** Backoff tuning; `maxAttempts` above wins over `retry.maxAttempts`. */
  retry?: Partial<RetryPolicy>;
  /** The fetch to send with (default: the global one). */
  fetch?: Fetch;
}

type Media = `${string}/${string}`;
type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
type RawClient = Client<paths, Media>;
type PathOf<M extends HttpMethod> = ClientPathsWithMethod<RawClient, M>;
type InitOf<P extends keyof paths, M extends HttpMethod> = MaybeOptionalInit<paths[P], M>;
// openapi-fetch's rule for the options argument: optional when nothing in it is required.
type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type InitParam<I> =
  RequiredKeysOf<I> extends never
    ? [(I & { [key: string]: unknown })?]
    : [I & { [key: string]: unknown }];
// The typed methods parse JSON, so their data is the `application/json` body even where a route
// also answers another type (the statement's `text/csv`: read it through `raw` with `parseAs`).
type DataOf<P extends keyof paths, M extends HttpMethod, I> = NonNullable<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, I, 'application/json'>['data']
>;

/** A typed call that resolves to the response's data and throws PaymentsApiError otherwise. */
type DataMethod<M extends HttpMethod> = <P extends PathOf<M>, I extends InitOf<P, M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<DataOf<P, M, I>>;

/** The GET paths whose answer is a list (a bare JSON array paginated with `Link`). */
export type ListPath = {
  [P in PathOf<'get'>]: DataOf<P, 'get', InitOf<P, 'get'>> extends Array<unknown> ? P : never;
}[PathOf<'get'>];
export type ListItem<P extends ListPath> =
  DataOf<P, 'get', InitOf<P, 'get'>> extends Array<infer T> ? T : never;

/**
 * The API client. Typed from docs/openapi.json: `get`/`post`/`patch`/`delete` take the path as the
 * document spells it and resolve to the typed body, or throw a PaymentsApiError. Every POST carries
 * an Idempotency-Key (yours, or a fresh UUID) that its retries reuse; 429/503 answers are retried
 * as `Retry-After` says. `raw` is the underlying openapi-fetch client, for `{ data, error,
 * response }` (headers such as `Idempotent-Replayed` or `X-Total-Count`).
 */
export class PaymentsClient {
  readonly raw: RawClient;
  readonly baseUrl: string;
  private readonly send: Fetch;

  constructor(private readonly options: PaymentsClientOptions) {
    if (!options.apiKey) throw new Error('PaymentsClient needs an apiKey');
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      ...options.retry,
      ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    };
    const base: Fetch = options.fetch ?? ((request) => fetch(request));
    const retrying = retryingFetch(base, policy);
    this.send = (request) => retrying(this.prepare(request));
    this.raw = createClient<paths, Media>({ baseUrl: this.baseUrl, fetch: this.send });
  }

  /** The same client acting for a sub-merchant of a PSP account (`X-Sub-Merchant-Code`). */
  forSubMerchant(code: string): PaymentsClient {
    return new PaymentsClient({ ...this.options, subMerchantCode: code });
  }

  readonly get = ((path: string, init?: object) =>
    dataOrThrow(untyped(this.raw.GET)(path, init))) as DataMethod<'get'>;

  readonly post = ((path: string, init?: object) =>
    dataOrThrow(untyped(this.raw.POST)(path, init))) as DataMethod<'post'>;

  readonly patch = ((path: string, init?: object) =>
    dataOrThrow(untyped(this.raw.PATCH)(path, init))) as DataMethod<'patch'>;

  readonly delete = ((path: string, init?: object) =>
    dataOrThrow(untyped(this.raw.DELETE)(path, init))) as DataMethod<'delete'>;

  /**
   * Every item of a list, page after page, following the `Link` header's `next` until there is
   * none (by page number, then by cursor past 10,000 rows: see docs/pagination.md). Filters and
   * `page_size` in `init` apply to every page.
   */
  async *list<P extends ListPath>(
    path: P,
    ...init: InitParam<InitOf<P, 'get'>>
  ): AsyncGenerator<ListItem<P>, void, undefined> {
    const first = await untyped(this.raw.GET)(path, init[0]);
    if (!first.response.ok) throw PaymentsApiError.fromParsed(first.response, first.error);
    yield* first.data as ListItem<P>[];
    const headers = callHeaders(init[0]);
    let next = parseNextLink(first.response.headers.get('Link'));
    while (next !== null) {
      const response = await this.send(new Request(this.resolve(next), { headers }));
      if (!response.ok) throw await PaymentsApiError.fromResponse(response);
      yield* (await response.json()) as ListItem<P>[];
      next = parseNextLink(response.headers.get('Link'));
    }
  }

  /** A Link target: the API sends paths (`/v1/…`), resolved under the base URL's own path. */
  private resolve(target: string): string {
    return target.startsWith('/') ? `${this.baseUrl}${target}` : new URL(target).toString();
  }

  /** Headers every attempt of a request carries; set once, before the first attempt. */
  private prepare(request: Request): Request {
    const headers = request.headers;
    if (!headers.has('Authorization'))
      headers.set('Authorization', `Bearer ${this.options.apiKey}`);
    if (this.options.subMerchantCode && !headers.has(SUB_MERCHANT_HEADER)) {
      headers.set(SUB_MERCHANT_HEADER, this.options.subMerchantCode);
    }
    if (request.method === 'POST' && !headers.has(IDEMPOTENCY_KEY_HEADER)) {
      headers.set(IDEMPOTENCY_KEY_HEADER, globalThis.crypto.randomUUID());
    }
    return request;
  }
}

/** The headers a call's options add (`headers`, `params.header`): the next pages send them too. */
function callHeaders(init: unknown): Headers {
  const options = init as
    { headers?: Record<string, string>; params?: { header?: Record<string, unknown> } } | undefined;
  const headers = new Headers(options?.headers);
  for (const [name, value] of Object.entries(options?.params?.header ?? {})) {
    if (value !== undefined && value !== null) headers.set(name, String(value));
  }
  return headers;
}

interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** A raw method as the implementations below call it; the public signatures carry the types. */
function untyped(method: unknown): (path: string, init?: object) => Promise<RawResult> {
  return method as (path: string, init?: object) => Promise<RawResult>;
}

async function dataOrThrow(call: Promise<RawResult>): Promise<unknown> {
  const { data, error, response } = await call;
  if (!response.ok) throw PaymentsApiError.fromParsed(response, error);
  return data;
}

/** `new PaymentsClient(options)`. */
export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  return new PaymentsClient(options);
}
