import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { FileExchangeRates } from './file-exchange-rates';

const HOUR_MS = 3_600_000;
const OPTIONS = { refreshMs: 1_000, maxAgeMs: HOUR_MS };

describe('FileExchangeRates', () => {
  let path: string;

  beforeEach(() => {
    path = join(mkdtempSync(join(tmpdir(), 'fx-rates-')), 'rates.json');
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  const write = (value: unknown) => writeFileSync(path, JSON.stringify(value));
  const dated = (rates: Record<string, string>, asOf = new Date()) => ({
    as_of: asOf.toISOString(),
    usd_per_unit: rates,
  });
  const rateOf = (rates: FileExchangeRates, currency: string, now = new Date()) => {
    const lookup = rates.lookup(currency, now);
    return lookup.status === 'current' ? lookup.usdPerUnit.toFixed() : lookup.status;
  };

  it('in production: needs as_of, and refuses the rates once they are older than the bound', () => {
    write({ EUR: '1.08' });
    expect(() => FileExchangeRates.load(path, true, OPTIONS)).toThrow(
      /^FX_RATES_FILE \(.*\) is invalid: EUR: unknown field; as_of must be/,
    );
    write(dated({ EUR: '1.08' }));
    const rates = FileExchangeRates.load(path, true, OPTIONS);
    expect(rateOf(rates, 'EUR')).toBe('1.08');
    expect(rateOf(rates, 'EUR', new Date(Date.now() + HOUR_MS + 1_000))).toBe('unavailable');
  });

  it('in the sandbox: the flat undated table is accepted and never goes stale', () => {
    write({ EUR: '1.08' });
    const rates = FileExchangeRates.load(path, false, OPTIONS);
    expect(rateOf(rates, 'EUR', new Date(Date.now() + 365 * 24 * HOUR_MS))).toBe('1.08');
    write(dated({ EUR: '1.08' }, new Date(Date.now() - 48 * HOUR_MS)));
    expect(rateOf(FileExchangeRates.load(path, false, OPTIONS), 'EUR')).toBe('1.08');
  });

  it('stops the start when the file cannot be read or parsed', () => {
    expect(() => FileExchangeRates.load(join(path, 'missing.json'), false, OPTIONS)).toThrow(
      /^FX_RATES_FILE: cannot read/,
    );
    writeFileSync(path, '{"EUR": ');
    expect(() => FileExchangeRates.load(path, false, OPTIONS)).toThrow('is not valid JSON');
  });

  it('takes a rewritten file, and keeps the last good rates after a bad rewrite', async () => {
    write(dated({ EUR: '1.08' }, new Date(Date.now() - 2 * HOUR_MS)));
    const rates = FileExchangeRates.load(path, true, OPTIONS);
    expect(rates.isStale()).toBe(true);
    expect(rateOf(rates, 'EUR')).toBe('unavailable');

    write(dated({ EUR: '1.09', GBP: '1.27' }));
    expect(await rates.refresh()).toBe(true);
    expect(rateOf(rates, 'EUR')).toBe('1.09');
    expect(rates.supportedCurrencies()).toEqual(['EUR', 'GBP']);

    writeFileSync(path, 'not json');
    expect(await rates.refresh()).toBe(false);
    expect(rateOf(rates, 'EUR')).toBe('1.09');
  });
});
