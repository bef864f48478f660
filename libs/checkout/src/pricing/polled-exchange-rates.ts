import { Logger, OnModuleDestroy } from '@nestjs/common';
import { CurrentRates } from './current-rates';
import { ExchangeRateProvider, RateLookup } from './exchange-rate.provider';
import { RatesDocument } from './rates-document';

export interface PollingOptions {
  /** How often the source is read again. */
  refreshMs: number;
  /** Rates older than this are refused; null: never (sandbox files only). */
  maxAgeMs: number | null;
}

/**
 * A rate source read again every refreshMs that keeps the last good rates: a failed or invalid
 * read changes nothing, so an outage shorter than the staleness bound costs no request anything,
 * and a longer one refuses fiat-priced sessions (503) instead of pricing them at an old rate.
 * Failures are logged when they start or change, not on every poll.
 */
export abstract class PolledExchangeRates implements ExchangeRateProvider, OnModuleDestroy {
  protected readonly logger = new Logger('ExchangeRates');
  protected readonly rates: CurrentRates;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private problem: string | undefined;
  private staleReported = false;

  protected constructor(
    /** How logs and errors name the source ("FX_RATES_URL"); never the URL itself. */
    readonly source: string,
    protected readonly options: PollingOptions,
  ) {
    this.rates = new CurrentRates(source, {
      maxAgeMs: options.maxAgeMs,
      retryAfterSeconds: Math.max(1, Math.ceil(options.refreshMs / 1000)),
    });
  }

  /** Reads the source: a document, null when it has not changed since the last read. */
  protected abstract read(now: Date): Promise<RatesDocument | null>;

  lookup(currency: string, now: Date): RateLookup {
    return this.rates.lookup(currency, now);
  }

  supportedCurrencies(): string[] {
    return this.rates.supportedCurrencies();
  }

  /** One read now; true when the source answered with valid rates. Never throws. */
  async refresh(): Promise<boolean> {
    let answered = false;
    try {
      const document = await this.read(new Date());
      if (document) this.accept(document);
      answered = true;
      if (this.problem !== undefined) {
        this.logger.log(
          { source: this.source, asOf: this.rates.asOf },
          'Exchange rates refreshed again',
        );
      }
      this.problem = undefined;
    } catch (error) {
      this.noteProblem(error instanceof Error ? error.message : String(error));
    }
    this.reportStaleness(new Date());
    return answered;
  }

  /** Reads the source again refreshMs after each read ends, until stopped. */
  startPolling(): void {
    if (this.stopped || this.timer) return;
    const next = () => {
      this.timer = setTimeout(() => {
        void this.refresh().then(() => {
          if (!this.stopped) next();
        });
      }, this.options.refreshMs);
      // Polling never keeps a process alive on its own.
      this.timer.unref();
    };
    next();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  onModuleDestroy(): void {
    this.stop();
  }

  private accept(document: RatesDocument): void {
    const previous = this.rates.asOf;
    if (!this.rates.offer(document)) {
      throw new Error(
        `the rates are as of ${document.asOf?.toISOString()}, older than those held ` +
          `(${previous?.toISOString()}); kept the newer ones`,
      );
    }
    if (previous?.getTime() !== document.asOf?.getTime() || previous === null) {
      this.logger.log(
        {
          source: this.source,
          asOf: document.asOf,
          currencies: [...document.usdPerUnit.keys()].sort(),
        },
        'Exchange rates loaded',
      );
    }
  }

  private noteProblem(reason: string): void {
    if (reason === this.problem) return;
    this.problem = reason;
    const held = this.rates.asOf;
    this.logger.warn(
      { source: this.source, reason, asOf: held },
      `${this.source}: could not refresh the exchange rates (${reason}); ` +
        (this.rates.loaded ? 'the last good rates are kept' : 'no rates are loaded yet'),
    );
  }

  private reportStaleness(now: Date): void {
    const stale = this.rates.isStale(now);
    if (stale && !this.staleReported) {
      this.logger.error(
        {
          source: this.source,
          asOf: this.rates.asOf,
          maxAgeSeconds:
            this.options.maxAgeMs === null ? null : Math.floor(this.options.maxAgeMs / 1000),
        },
        `${this.source}: no current exchange rates; sessions priced in ` +
          `${this.supportedCurrencies().join(', ') || 'fiat currencies'} are refused (503) ` +
          'until the source provides fresh ones',
      );
    } else if (!stale && this.staleReported) {
      this.logger.log(
        { source: this.source, asOf: this.rates.asOf },
        'Exchange rates current again',
      );
    }
    this.staleReported = stale;
  }
}
