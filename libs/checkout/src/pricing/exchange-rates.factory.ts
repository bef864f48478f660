import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/common';
import { ExchangeRateProvider } from './exchange-rate.provider';
import { FileExchangeRates } from './file-exchange-rates';
import { HttpExchangeRates, MAX_FX_REQUEST_MS } from './http-exchange-rates';
import { DEFAULT_USD_RATES, StaticExchangeRates } from './static-exchange-rates';

type RatesConfig = Pick<
  AppConfig,
  'env' | 'fxRatesFile' | 'fxRatesUrl' | 'fxRatesRefreshSeconds' | 'fxRatesMaxAgeSeconds'
>;

/**
 * The rate source the configuration names: FX_RATES_URL (polled), FX_RATES_FILE (re-read when
 * it changes), or in the sandbox only the built-in indicative table. The first read of a URL is
 * awaited, bounded by its timeout, so the first requests find rates; a source that is down never
 * stops the start (fiat-priced sessions answer 503 until it answers).
 */
export async function createExchangeRateProvider(
  config: RatesConfig,
): Promise<ExchangeRateProvider> {
  const logger = new Logger('ExchangeRates');
  const refreshMs = config.fxRatesRefreshSeconds * 1000;
  const maxAgeMs = config.fxRatesMaxAgeSeconds * 1000;
  if (config.fxRatesUrl) {
    const rates = new HttpExchangeRates(config.fxRatesUrl, {
      refreshMs,
      maxAgeMs,
      timeoutMs: Math.min(MAX_FX_REQUEST_MS, refreshMs),
    });
    await rates.refresh();
    rates.startPolling();
    return rates;
  }
  if (config.fxRatesFile) {
    const rates = FileExchangeRates.load(config.fxRatesFile, config.env === 'production', {
      refreshMs,
      maxAgeMs,
    });
    // Reports a file that is already too old (its rates are refused from the first request).
    await rates.refresh();
    rates.startPolling();
    return rates;
  }
  if (config.env === 'production') {
    // validateEnvironment refuses this already; a second guard where the rates are used.
    throw new Error('FX_RATES_URL or FX_RATES_FILE is required when APP_ENV=production.');
  }
  logger.log('Fiat prices use the built-in indicative rates (sandbox only)');
  return new StaticExchangeRates(DEFAULT_USD_RATES);
}
