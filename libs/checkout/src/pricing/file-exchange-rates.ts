import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { PolledExchangeRates, PollingOptions } from './polled-exchange-rates';
import { parseRatesDocument, RatesDocument } from './rates-document';

const SOURCE = 'FX_RATES_FILE';

/**
 * Rates from a JSON file (FX_RATES_FILE), read at start and again every refresh interval when its
 * content changed, so whatever rewrites the file (a cron job, a sidecar) keeps a running service
 * current. In production the file must carry `as_of` and obeys the staleness bound like any
 * source; in the sandbox it may be undated and never goes stale. A file that cannot be read or
 * is invalid at start stops the start; later, a bad rewrite is logged and the last good rates kept.
 */
export class FileExchangeRates extends PolledExchangeRates {
  private lastText: string | undefined;

  private constructor(
    private readonly path: string,
    private readonly dated: boolean,
    options: PollingOptions,
  ) {
    super(SOURCE, options);
  }

  /**
   * @param production dated file, staleness bound applied; otherwise undated allowed, no bound.
   */
  static load(
    path: string,
    production: boolean,
    options: { refreshMs: number; maxAgeMs: number },
  ): FileExchangeRates {
    const rates = new FileExchangeRates(path, production, {
      refreshMs: options.refreshMs,
      maxAgeMs: production ? options.maxAgeMs : null,
    });
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`${SOURCE}: cannot read ${path}: ${(error as Error).message}`);
    }
    rates.rates.offer(rates.parse(text, new Date()));
    rates.lastText = text;
    return rates;
  }

  /** True when the file's rates are older than the bound right now. */
  isStale(now = new Date()): boolean {
    return this.rates.isStale(now);
  }

  get asOf(): Date | null {
    return this.rates.asOf;
  }

  protected async read(now: Date): Promise<RatesDocument | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (text === this.lastText) return null;
    const document = this.parse(text, now);
    this.lastText = text;
    return document;
  }

  private parse(text: string, now: Date): RatesDocument {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`${SOURCE} (${this.path}) is not valid JSON.`);
    }
    return parseRatesDocument(value, `${SOURCE} (${this.path})`, {
      allowUndated: !this.dated,
      now,
    });
  }
}
