import { loadAppConfig } from './app-config';

describe('loadAppConfig', () => {
  it('falls back to local defaults in the sandbox', () => {
    const config = loadAppConfig({});
    expect(config).toMatchObject({
      env: 'sandbox',
      livemode: false,
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/payments',
      redisUrl: 'redis://127.0.0.1:6379',
      publicUrl: 'http://localhost:3000',
      sessionLifetimeMinutes: 60,
      refundDestinationExpiryMinutes: 10080,
      refundDestinationDelayMinutes: 1,
    });
    expect(
      loadAppConfig({ REFUND_DESTINATION_EXPIRY_MINUTES: '60' }).refundDestinationExpiryMinutes,
    ).toBe(60);
    expect(
      loadAppConfig({ REFUND_DESTINATION_DELAY_MINUTES: '0.25' }).refundDestinationDelayMinutes,
    ).toBe(0.25);
    expect(
      loadAppConfig({ REFUND_DESTINATION_DELAY_MINUTES: '0' }).refundDestinationDelayMinutes,
    ).toBe(0);
  });

  it.each([
    [{ APP_ENV: 'staging' }, 'APP_ENV'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ PUBLIC_URL: 'ftp://pay.example.com' }, 'PUBLIC_URL'],
    [{ HD_EVM_XPUB: 'xprv-not-a-public-key' }, 'HD_EVM_XPUB'],
    [{ SESSION_LIFETIME_MINUTES: '1' }, 'SESSION_LIFETIME_MINUTES'],
    [{ REFUND_DESTINATION_EXPIRY_MINUTES: '0' }, 'REFUND_DESTINATION_EXPIRY_MINUTES'],
    [{ REFUND_DESTINATION_EXPIRY_MINUTES: '200000' }, 'REFUND_DESTINATION_EXPIRY_MINUTES'],
    [{ REFUND_DESTINATION_DELAY_MINUTES: '1441' }, 'REFUND_DESTINATION_DELAY_MINUTES'],
    [{ REFUND_DESTINATION_DELAY_MINUTES: '-1' }, 'REFUND_DESTINATION_DELAY_MINUTES'],
    [{ REFUND_DESTINATION_DELAY_MINUTES: '0.001' }, 'REFUND_DESTINATION_DELAY_MINUTES'],
    [{ REFUND_DESTINATION_DELAY_MINUTES: 'soon' }, 'REFUND_DESTINATION_DELAY_MINUTES'],
  ])('refuses %p naming the variable', (env, name) => {
    expect(() => loadAppConfig(env)).toThrow(name);
  });

  it('requires every location and key in production', () => {
    expect(() => loadAppConfig({ APP_ENV: 'production' })).toThrow(
      /DATABASE_URL is required[\s\S]*REDIS_URL is required[\s\S]*PUBLIC_URL is required[\s\S]*HD_EVM_XPUB is required[\s\S]*HD_TRON_XPUB is required/,
    );
  });

  const PRODUCTION = {
    APP_ENV: 'production',
    DATABASE_URL: 'postgres://db/payments',
    REDIS_URL: 'redis://redis:6379',
    PUBLIC_URL: 'https://pay.example.com',
    HD_EVM_XPUB: `xpub${'a'.repeat(107)}`,
    HD_TRON_XPUB: `xpub${'b'.repeat(107)}`,
    WEBHOOK_SECRETS_KEY: 'ab'.repeat(32),
    METRICS_TOKEN: 'metrics-token-0123456789',
  };

  it('requires a key of webhook secrets in production, never the development one', () => {
    const withKey = (key: string) => () =>
      loadAppConfig({ ...PRODUCTION, FX_RATES_FILE: '/etc/rates.json', WEBHOOK_SECRETS_KEY: key });
    expect(withKey('')).toThrow('WEBHOOK_SECRETS_KEY is required when APP_ENV=production');
    expect(withKey('646576656c6f706d656e742d6f6e6c792d776562686f6f6b2d73656372657473')).toThrow(
      'WEBHOOK_SECRETS_KEY must not be the development key',
    );
    // A bad key is refused without being repeated.
    expect(withKey('zz'.repeat(32))).toThrow('WEBHOOK_SECRETS_KEY must be 64 hex digits');
    expect(withKey('zz'.repeat(32))).not.toThrow('zzzz');
    expect(withKey('AB'.repeat(32))().webhooks.secretsKey).toEqual(Buffer.alloc(32, 0xab));
    // The sandbox has a fixed development key.
    expect(loadAppConfig({}).webhooks.secretsKey).toHaveLength(32);
  });

  it('waits 15 minutes before sending an address a customer gave, in production by default', () => {
    const production = { ...PRODUCTION, FX_RATES_FILE: '/etc/rates.json' };
    expect(loadAppConfig(production).refundDestinationDelayMinutes).toBe(15);
    expect(
      loadAppConfig({ ...production, REFUND_DESTINATION_DELAY_MINUTES: '30' })
        .refundDestinationDelayMinutes,
    ).toBe(30);
    expect(
      loadAppConfig({ ...production, REFUND_DESTINATION_DELAY_MINUTES: '1' })
        .refundDestinationDelayMinutes,
    ).toBe(1);
  });

  it('refuses a delay below 1 minute in production: the cancel window never silently goes', () => {
    const production = { ...PRODUCTION, FX_RATES_FILE: '/etc/rates.json' };
    for (const delay of ['0', '0.5', '0.99']) {
      expect(() =>
        loadAppConfig({ ...production, REFUND_DESTINATION_DELAY_MINUTES: delay }),
      ).toThrow('REFUND_DESTINATION_DELAY_MINUTES below 1 is refused when APP_ENV=production');
    }
    // The sandbox and the test suites may still send at once.
    expect(
      loadAppConfig({ REFUND_DESTINATION_DELAY_MINUTES: '0' }).refundDestinationDelayMinutes,
    ).toBe(0);
  });

  it('requires a named rate source in production', () => {
    expect(() => loadAppConfig(PRODUCTION)).toThrow(
      'FX_RATES_URL or FX_RATES_FILE is required when APP_ENV=production',
    );
    expect(loadAppConfig({ ...PRODUCTION, FX_RATES_FILE: '/etc/rates.json' }).fxRatesFile).toBe(
      '/etc/rates.json',
    );
    expect(
      loadAppConfig({ ...PRODUCTION, FX_RATES_URL: 'https://fx.example.com/rates?key=k' }),
    ).toMatchObject({
      fxRatesUrl: 'https://fx.example.com/rates?key=k',
      fxRatesRefreshSeconds: 60,
      fxRatesMaxAgeSeconds: 3600,
    });
  });

  it('refuses private webhook targets and an open /metrics in production, naming the variable', () => {
    const production = { ...PRODUCTION, FX_RATES_FILE: '/etc/rates.json' };
    expect(() => loadAppConfig({ ...production, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      'WEBHOOKS_ALLOW_PRIVATE_URLS=true is refused when APP_ENV=production',
    );
    expect(() => loadAppConfig({ ...production, METRICS_TOKEN: undefined })).toThrow(
      'METRICS_TOKEN is required when APP_ENV=production',
    );
    expect(() => loadAppConfig({ ...production, METRICS_TOKEN: '' })).toThrow(
      'METRICS_TOKEN is required when APP_ENV=production',
    );
    expect(loadAppConfig({ ...production, WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' })).toMatchObject({
      webhooks: { allowPrivateUrls: false },
      operations: { metricsToken: 'metrics-token-0123456789' },
    });
    // Both stay for development in the sandbox.
    expect(loadAppConfig({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' })).toMatchObject({
      webhooks: { allowPrivateUrls: true },
      operations: { metricsToken: undefined },
    });
  });

  it('needs no rate source in the sandbox (the built-in table)', () => {
    expect(loadAppConfig({})).toMatchObject({ fxRatesFile: undefined, fxRatesUrl: undefined });
  });

  it.each([
    [{ FX_RATES_FILE: '/a.json', FX_RATES_URL: 'https://fx.example.com' }, 'both set'],
    [{ FX_RATES_URL: 'ftp://fx.example.com' }, 'FX_RATES_URL must be an http(s) URL'],
    [{ FX_RATES_REFRESH_SECONDS: '0' }, 'FX_RATES_REFRESH_SECONDS must be a whole number'],
    [{ FX_RATES_MAX_AGE_SECONDS: '59' }, 'FX_RATES_MAX_AGE_SECONDS must be a whole number'],
    [
      { FX_RATES_REFRESH_SECONDS: '600', FX_RATES_MAX_AGE_SECONDS: '600' },
      'FX_RATES_REFRESH_SECONDS must be less than FX_RATES_MAX_AGE_SECONDS',
    ],
  ])('refuses the rate settings %p', (env, message) => {
    expect(() => loadAppConfig(env)).toThrow(message);
  });

  it('takes rates over https in production, or from this host', () => {
    const withUrl = (url: string) => () => loadAppConfig({ ...PRODUCTION, FX_RATES_URL: url });
    expect(withUrl('http://fx.example.com/rates')).toThrow('FX_RATES_URL must be https');
    expect(withUrl('http://127.0.0.1:8080/rates')).not.toThrow();
    expect(withUrl('http://localhost:8080/rates')).not.toThrow();
    // The URL may carry a key: messages never repeat it.
    expect(withUrl('http://fx.example.com/rates?key=SECRET')).not.toThrow('SECRET');
  });

  it('sizes the pay-address pool for a burst, with the watermark at a sixth by default', () => {
    expect(loadAppConfig({}).payAddressPool).toEqual({ targetSize: 60000, lowWatermark: 10000 });
    expect(loadAppConfig({ PAY_ADDRESS_POOL_TARGET: '600' }).payAddressPool).toEqual({
      targetSize: 600,
      lowWatermark: 100,
    });
    // A watermark above the target would refill on every tick: capped at the target.
    expect(
      loadAppConfig({ PAY_ADDRESS_POOL_TARGET: '600', PAY_ADDRESS_POOL_LOW_WATERMARK: '5000' })
        .payAddressPool,
    ).toEqual({ targetSize: 600, lowWatermark: 600 });
    expect(() => loadAppConfig({ PAY_ADDRESS_POOL_TARGET: '5' })).toThrow(
      'PAY_ADDRESS_POOL_TARGET',
    );
    expect(() => loadAppConfig({ PAY_ADDRESS_POOL_LOW_WATERMARK: 'lots' })).toThrow(
      'PAY_ADDRESS_POOL_LOW_WATERMARK',
    );
  });

  it('bounds the API database by default, and keeps 30 days of attempts and 90 of events', () => {
    const config = loadAppConfig({});
    expect(config.databaseStatementTimeoutMs).toBe(15000);
    expect(config.databaseListTotalTimeoutMs).toBe(2000);
    expect(config.databaseIdleInTransactionTimeoutMs).toBe(60000);
    expect(config.databaseConnectTimeoutMs).toBe(10000);
    expect(config.retention).toEqual({
      webhookAttemptsDays: 30,
      eventsDays: 90,
      requestLogDays: 30,
      batchSize: 1000,
    });
    expect(loadAppConfig({ RETENTION_EVENTS_DAYS: '0' }).retention.eventsDays).toBe(0);
    expect(loadAppConfig({ RETENTION_REQUEST_LOG_DAYS: '0' }).retention.requestLogDays).toBe(0);
    expect(loadAppConfig({ RETENTION_REQUEST_LOG_DAYS: '400' }).retention.requestLogDays).toBe(400);
  });

  it('refuses a retention or time limit that is not a whole number in range, naming it', () => {
    // "9O" (a letter O) must never be read as 0, 9 or "delete everything".
    expect(() => loadAppConfig({ RETENTION_EVENTS_DAYS: '9O' })).toThrow('RETENTION_EVENTS_DAYS');
    expect(() => loadAppConfig({ RETENTION_WEBHOOK_ATTEMPTS_DAYS: '-1' })).toThrow(
      'RETENTION_WEBHOOK_ATTEMPTS_DAYS',
    );
    expect(() => loadAppConfig({ RETENTION_BATCH_SIZE: '10' })).toThrow('RETENTION_BATCH_SIZE');
    expect(() => loadAppConfig({ RETENTION_REQUEST_LOG_DAYS: '30d' })).toThrow(
      'RETENTION_REQUEST_LOG_DAYS',
    );
    expect(() => loadAppConfig({ RETENTION_REQUEST_LOG_DAYS: '3651' })).toThrow(
      'RETENTION_REQUEST_LOG_DAYS',
    );
    expect(() => loadAppConfig({ DATABASE_LIST_TOTAL_TIMEOUT_MS: '2s' })).toThrow(
      'DATABASE_LIST_TOTAL_TIMEOUT_MS',
    );
    expect(() => loadAppConfig({ DATABASE_CONNECT_TIMEOUT_MS: '9999999' })).toThrow(
      'DATABASE_CONNECT_TIMEOUT_MS',
    );
  });

  it('strips a trailing slash from PUBLIC_URL', () => {
    expect(loadAppConfig({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe(
      'https://pay.example.com',
    );
  });
});
