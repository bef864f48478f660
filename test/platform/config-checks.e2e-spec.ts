import { FakeRatesServer } from '@app/checkout/pricing/testing/fake-rates-server';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
// The smallest bound the configuration takes. The server's rates are served already this old,
// so they stay good for 30 s (time for a slow machine to start the API and price with them) and
// then exceed the bound while the test waits.
const MAX_AGE_SECONDS = 60;
const SERVED_AGE_SECONDS = MAX_AGE_SECONDS - 30;

/** Sets environment variables for the apps a suite starts, and gives the old values back. */
function useEnvironment(changes: Record<string, string>): () => void {
  const previous = Object.fromEntries(
    Object.keys(changes).map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, changes);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

describe('Fiat pricing from an HTTP rate source (FX_RATES_URL) with a staleness bound', () => {
  let server: FakeRatesServer;
  let api: TestApi;
  let merchant: TestMerchant;
  let restore: () => void;

  beforeAll(async () => {
    server = new FakeRatesServer();
    await server.start();
    server.serveRates({ EUR: '1.0812', GBP: '1.27' }, SERVED_AGE_SECONDS);
    restore = useEnvironment({
      FX_RATES_URL: server.url,
      FX_RATES_REFRESH_SECONDS: '1',
      FX_RATES_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS),
    });
    api = await TestApi.start();
    merchant = await api.createMerchant();
  });

  afterAll(async () => {
    await api?.close();
    await server?.stop();
    restore?.();
  });

  const create = (pricingCurrency: string, amount = '100', headers: Record<string, string> = {}) =>
    api.post(
      SESSIONS,
      merchant,
      {
        pricing_amount: amount,
        pricing_currency: pricingCurrency,
        currency: 'USDT',
        network: 'ETHEREUM',
      },
      headers,
    );
  let replayable: { id: string };
  const priced = async (currency: string, rate: string) =>
    (await create(currency)).body?.pricing?.exchange_rate === rate;

  it('prices a EUR session with fresh rates', async () => {
    replayable = (await create('EUR', '25', { 'Idempotency-Key': 'eur-before-stale' }).expect(201))
      .body;
    const { body } = await create('EUR').expect(201);
    // Not the built-in indicative 1.08: the source's own rate.
    expect(body).toMatchObject({
      amount: '108.12',
      pricing: { amount: '100', currency: 'EUR', exchange_rate: '1.08120000' },
    });
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
  });

  it('answers 503 naming the currency once the source serves stale rates', async () => {
    // The source keeps answering with the same rates: they age past the bound.
    await waitFor(async () => (await create('EUR')).status === 503, 60_000, 'a 503 for EUR');
    expect(server.requests.length).toBeGreaterThan(2);

    const response = await create('EUR').expect(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toEqual({
      error: {
        type: 'api_error',
        code: 'service_unavailable',
        message: expect.stringMatching(
          /^The exchange rate for EUR is out of date \(as of \S+; rates older than 60 s are refused\)\. Try again later, or price the session in USD, USDT or USDC\.$/,
        ),
        param: 'pricing_currency',
        request_id: expect.any(String),
      },
    });
    // Never a wrong price, and nothing is created.
    const before = await api.count('checkout_sessions', 'merchant_id = $1', [merchant.id]);
    await create('GBP').expect(503);
    expect(await api.count('checkout_sessions', 'merchant_id = $1', [merchant.id])).toBe(before);
    // Sessions priced in the token itself, or in USD, do not depend on the rate source.
    await create('USDT').expect(201);
    await create('USD').expect(201);
    // An unknown code is still the client's mistake.
    await create('ABC').expect(400);
    // A retry of a request that succeeded gets what it got then, stale rates or not.
    const replay = await create('EUR', '25', { 'Idempotency-Key': 'eur-before-stale' }).expect(201);
    expect(replay.body.id).toBe(replayable.id);
    await create('EUR', '26', { 'Idempotency-Key': 'eur-before-stale' }).expect(409);
  });

  it('keeps the last good rates while the source is down, until they exceed the bound', async () => {
    // Newer rates, good for a few more seconds.
    server.serveRates({ EUR: '1.09', GBP: '1.27' }, SERVED_AGE_SECONDS);
    await waitFor(() => priced('EUR', '1.09000000'), 10_000, 'the new rates');

    await server.stop();
    const { body } = await create('EUR').expect(201);
    expect(body).toMatchObject({ amount: '109', pricing: { exchange_rate: '1.09000000' } });

    await waitFor(async () => (await create('EUR')).status === 503, 60_000, 'the bound to pass');
    await create('USDT').expect(201);
  });
});
