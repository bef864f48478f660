import { parseIsoDateTime } from '@app/common';
import { parseRatesDocument, RatesDocumentError } from './rates-document';

const NOW = new Date('2026-05-01T12:00:00Z');
const dated = { allowUndated: false, now: NOW };
const undated = { allowUndated: true, now: NOW };
const parse =
  (value: unknown, options = dated) =>
  () =>
    parseRatesDocument(value, 'FX_RATES_URL', options);

describe('parseRatesDocument', () => {
  it('reads as_of and the USD rate of each currency as decimals', () => {
    const document = parseRatesDocument(
      { as_of: '2026-05-01T11:59:00+02:00', usd_per_unit: { EUR: '1.0812', JPY: '0.0067' } },
      'FX_RATES_URL',
      dated,
    );
    expect(document.asOf?.toISOString()).toBe('2026-05-01T09:59:00.000Z');
    expect([...document.usdPerUnit].map(([code, rate]) => [code, rate.toFixed()])).toEqual([
      ['EUR', '1.0812'],
      ['JPY', '0.0067'],
    ]);
  });

  it('leaves the pegs out, and accepts them only at 1', () => {
    const document = parseRatesDocument(
      { as_of: '2026-05-01T12:00:00Z', usd_per_unit: { USD: '1', USDT: '1.0', EUR: '1.08' } },
      'FX_RATES_URL',
      dated,
    );
    expect([...document.usdPerUnit.keys()]).toEqual(['EUR']);
    // A table in "units per USD" would say EUR 0.92 and maybe USD 1; another base shows here.
    expect(parse({ as_of: '2026-05-01T12:00:00Z', usd_per_unit: { USD: '0.92' } })).toThrow(
      'USD must be "1" (USD-pegged)',
    );
  });

  it('accepts the undated flat table only where undated tables are allowed', () => {
    const flat = { EUR: '1.08' };
    expect(parseRatesDocument(flat, 'FX_RATES_FILE', undated)).toEqual({
      asOf: null,
      usdPerUnit: new Map([['EUR', expect.anything()]]),
    });
    expect(parse(flat)).toThrow(/EUR: unknown field; as_of must be an RFC 3339 date-time/);
    expect(parse({ usd_per_unit: flat })).toThrow('as_of must be an RFC 3339 date-time');
    expect(parseRatesDocument({ usd_per_unit: flat }, 'FX_RATES_FILE', undated).asOf).toBeNull();
  });

  it.each([
    ['a list', [], 'usd_per_unit must be an object'],
    ['a rate as a JSON number', { EUR: 1.08 }, 'the rate of EUR must be a positive decimal string'],
    ['a zero rate', { EUR: '0' }, 'the rate of EUR must be a positive'],
    ['an exponent', { EUR: '1e3' }, 'the rate of EUR must be'],
    ['a lower-case code', { eur: '1.08' }, '"eur" is not a currency code'],
    ['no rates', {}, 'usd_per_unit is empty'],
  ])('refuses %s', (_label, rates, message) => {
    expect(parse({ as_of: '2026-05-01T12:00:00Z', usd_per_unit: rates })).toThrow(message);
    expect(parse({ as_of: '2026-05-01T12:00:00Z', usd_per_unit: rates })).toThrow(
      RatesDocumentError,
    );
  });

  it('refuses a document that is not an object', () => {
    expect(parse([{ EUR: '1.08' }])).toThrow('it must be a JSON object');
    expect(parse('EUR=1.08', undated)).toThrow('it must be a JSON object');
  });

  it.each([
    ['no zone', '2026-05-01T12:00:00'],
    ['a date only', '2026-05-01'],
    ['epoch seconds', 1777636800],
    ['an impossible date', '2026-13-45T12:00:00Z'],
  ])('refuses an as_of with %s', (_label, asOf) => {
    expect(parse({ as_of: asOf, usd_per_unit: { EUR: '1.08' } })).toThrow('as_of must be');
  });

  // The strings where a pattern of its own and the API's rule (is-iso-date-time.validator) parted.
  it.each([
    ['2026-02-30T12:00:00Z', false],
    ['2026-04-31T00:00:00Z', false],
    ['1900-02-29T00:00:00Z', false],
    ['2026-05-01T24:00:00Z', false],
    ['2026-05-01T12:00:00+24:00', false],
    ['２０２６-05-01T12:00:00Z', false],
    ['2026-05-01T12:00:00.123456789Z', true],
    ['2026-05-01T13:00:00+01:00', true],
    ['2000-02-29T00:00:00Z', true],
  ])('takes the as_of %s exactly when the API takes it as a date-time (%s)', (asOf, valid) => {
    expect(parseIsoDateTime(asOf) !== null).toBe(valid);
    const read = parse({ as_of: asOf, usd_per_unit: { EUR: '1.08' } });
    if (valid) expect(read().asOf).toEqual(parseIsoDateTime(asOf));
    else expect(read).toThrow('as_of must be an RFC 3339 date-time with an offset');
  });

  it('refuses an as_of more than five minutes ahead, which would never go stale', () => {
    const ahead = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();
    expect(parse({ as_of: ahead(6), usd_per_unit: { EUR: '1.08' } })).toThrow(
      'as_of is in the future',
    );
    expect(parse({ as_of: ahead(4), usd_per_unit: { EUR: '1.08' } })()).toBeDefined();
  });

  it('names the source and lists every problem, without repeating values', () => {
    const build = parse({ as_of: 'soon', extra: 'SECRET', usd_per_unit: { EUR: 'SECRET2' } });
    expect(build).toThrow(
      /^FX_RATES_URL is invalid: extra: unknown field; as_of must be .*; the rate of EUR must be/,
    );
    expect(build).not.toThrow(/SECRET/);
  });
});
