import { PolledExchangeRates, PollingOptions } from './polled-exchange-rates';
import { parseRatesDocument, RatesDocument } from './rates-document';

const SOURCE = 'FX_RATES_URL';
// A rate table is a few kilobytes; anything much larger is not one.
const MAX_BODY_BYTES = 1024 * 1024;
/** One request may take this long at most (less when the refresh interval is shorter). */
export const MAX_FX_REQUEST_MS = 10_000;

export interface HttpRatesOptions extends PollingOptions {
  maxAgeMs: number;
  timeoutMs: number;
}

/**
 * Rates from an HTTP endpoint (FX_RATES_URL) answering GET with the rates document (see
 * rates-document.ts), polled every refresh interval. Each request has a timeout, follows no
 * redirect and reads at most 1 MiB. The URL may carry an API key: it is never logged or shown;
 * failures name FX_RATES_URL and the kind of failure only.
 */
export class HttpExchangeRates extends PolledExchangeRates {
  constructor(
    private readonly url: string,
    private readonly http: HttpRatesOptions,
  ) {
    super(SOURCE, http);
  }

  protected async read(now: Date): Promise<RatesDocument> {
    const text = await this.fetchText();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error('the answer is not JSON');
    }
    return parseRatesDocument(value, 'the answer', { allowUndated: false, now });
  }

  private async fetchText(): Promise<string> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.http.timeoutMs),
      });
    } catch (error) {
      throw new Error(describeFailure(error, this.http.timeoutMs));
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    try {
      return await readLimited(response, MAX_BODY_BYTES);
    } catch (error) {
      throw new Error(describeFailure(error, this.http.timeoutMs));
    }
  }
}

async function readLimited(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What went wrong, from safe parts only: fetch's errors can quote the URL, which may hold a key. */
function describeFailure(error: unknown, timeoutMs: number): string {
  // Duck-typed: the abort is a DOMException, which need not be an Error of this realm.
  const { name, message, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    cause?: { code?: unknown };
  };
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (typeof message === 'string' && message.startsWith('the answer is larger')) return message;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code ? `connection failed (${code})` : 'request failed';
}
