import { Logger } from '@nestjs/common';
import { HttpExchangeRates } from './http-exchange-rates';
import { FakeRatesServer } from './testing/fake-rates-server';

const MAX_AGE_S = 600;
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('HttpExchangeRates against a local HTTP server', () => {
  let server: FakeRatesServer;
  let rates: HttpExchangeRates;
  let logged: unknown[][];

  beforeEach(async () => {
    logged = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
        logged.push(args);
      });
    }
    server = new FakeRatesServer();
    await server.start();
    rates = new HttpExchangeRates(server.url, {
      refreshMs: 1_000,
      maxAgeMs: MAX_AGE_S * 1000,
      // Generous: a loaded 2-core machine can take long to answer even a local request.
      timeoutMs: 3_000,
    });
  });

  afterEach(async () => {
    rates.stop();
    await server.stop();
    jest.restoreAllMocks();
  });

  const rateOf = (currency: string, now = new Date()) => {
    const lookup = rates.lookup(currency, now);
    return lookup.status === 'current' ? lookup.usdPerUnit.toFixed() : lookup.status;
  };

  it('prices with fresh rates, and answers unsupported for a currency it does not list', async () => {
    server.serveRates({ EUR: '1.0812', GBP: '1.27' }, 5);
    expect(await rates.refresh()).toBe(true);
    expect(rateOf('EUR')).toBe('1.0812');
    expect(rateOf('CHF')).toBe('unsupported');
    expect(rates.supportedCurrencies()).toEqual(['EUR', 'GBP']);
    expect(server.requests).toEqual(['/v1/rates?access_key=SECRET-FX-KEY']);
  });

  it('refuses rates older than the bound, naming the currency', async () => {
    server.serveRates({ EUR: '1.08' }, MAX_AGE_S + 5);
    await rates.refresh();
    expect(rates.lookup('EUR', new Date())).toEqual({
      status: 'unavailable',
      reason: expect.stringMatching(
        /^The exchange rate for EUR is out of date \(as of .*; rates older than 600 s are refused\)/,
      ),
      retryAfterSeconds: 1,
    });
  });

  it('keeps the last good rates while the server is down, until they exceed the bound', async () => {
    server.serveRates({ EUR: '1.08' }, 0);
    await rates.refresh();
    await server.stop();
    expect(await rates.refresh()).toBe(false);
    expect(logged).toContainEqual([
      expect.objectContaining({ reason: 'connection failed (ECONNREFUSED)' }),
      expect.any(String),
    ]);
    expect(rateOf('EUR')).toBe('1.08');
    expect(rateOf('EUR', later(MAX_AGE_S - 5))).toBe('1.08');
    expect(rateOf('EUR', later(MAX_AGE_S + 5))).toBe('unavailable');
    // Back with fresher rates: priced again.
    await server.start();
    server.serveRates({ EUR: '1.09' }, 0);
    await rates.refresh();
    expect(rateOf('EUR')).toBe('1.09');
  });

  it.each([
    ['an HTTP error', (fake: FakeRatesServer) => fake.serve('oops', 503), 'HTTP 503'],
    ['a body that is not JSON', (fake: FakeRatesServer) => fake.serve('<html>'), 'not JSON'],
    [
      'an invalid document',
      (fake: FakeRatesServer) => fake.serve(JSON.stringify({ as_of: 'now', usd_per_unit: {} })),
      'as_of must be',
    ],
    [
      'numbers instead of decimal strings',
      (fake: FakeRatesServer) =>
        fake.serve(JSON.stringify({ as_of: new Date().toISOString(), usd_per_unit: { EUR: 1.1 } })),
      'the rate of EUR must be a positive decimal string',
    ],
    ['no answer (timeout)', (fake: FakeRatesServer) => fake.hang(), 'no answer within 3000 ms'],
    [
      'a body over 1 MiB',
      (fake: FakeRatesServer) => fake.serve(' '.repeat(1024 * 1024 + 1)),
      'larger than',
    ],
  ])('keeps the last good rates after %s, and says why', async (_label, misbehave, reason) => {
    server.serveRates({ EUR: '1.08' }, 0);
    await rates.refresh();
    misbehave(server);
    expect(await rates.refresh()).toBe(false);
    expect(rateOf('EUR')).toBe('1.08');
    expect(logged).toContainEqual([
      expect.objectContaining({ source: 'FX_RATES_URL', reason: expect.stringContaining(reason) }),
      expect.stringMatching(
        /^FX_RATES_URL: could not refresh the exchange rates .*last good rates are kept$/,
      ),
    ]);
  });

  it('does not go back to older rates', async () => {
    server.serveRates({ EUR: '1.09' }, 10);
    await rates.refresh();
    server.serveRates({ EUR: '1.01' }, 60);
    expect(await rates.refresh()).toBe(false);
    expect(rateOf('EUR')).toBe('1.09');
  });

  it('answers unavailable before the first good answer', async () => {
    await server.stop();
    await rates.refresh();
    expect(rates.lookup('EUR', new Date())).toEqual({
      status: 'unavailable',
      reason: expect.stringMatching(/^No exchange rate for EUR is available: FX_RATES_URL has not/),
      retryAfterSeconds: 1,
    });
    expect(rates.supportedCurrencies()).toEqual([]);
  });

  it('polls on its own, and never logs the URL (it may carry a key)', async () => {
    server.serveRates({ EUR: '1.08' }, 0);
    rates.startPolling();
    const deadline = Date.now() + 5_000;
    while (rateOf('EUR') !== '1.08' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(rateOf('EUR')).toBe('1.08');
    await server.stop();
    await rates.refresh();
    expect(JSON.stringify(logged)).not.toContain('SECRET-FX-KEY');
    expect(JSON.stringify(logged)).not.toContain('127.0.0.1');
  });
});
