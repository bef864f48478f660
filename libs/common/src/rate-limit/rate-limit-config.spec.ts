import { loadAppConfig } from '../config/app-config';

describe('Rate-limit and TRUST_PROXY configuration', () => {
  it('defaults to a provider-like limit per merchant, per page client and for failed keys', () => {
    const config = loadAppConfig({ REDIS_URL: 'redis://cache:6379' });
    expect(config.rateLimits).toEqual({
      readsPerSecond: 100,
      writesPerSecond: 100,
      checkoutPagePerMinute: 600,
      consoleSignInPerMinute: 20,
      checkoutStreamsPerClient: 10,
      failedAuthPerMinute: 30,
      redisUrl: 'redis://cache:6379',
    });
    expect(config.trustProxy).toBe(false);
  });

  it('reads every limit and a Redis of their own', () => {
    const config = loadAppConfig({
      RATE_LIMIT_READS_PER_SECOND: '250',
      RATE_LIMIT_WRITES_PER_SECOND: '50',
      RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE: '1200',
      RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT: '4',
      RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE: '7',
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '10',
      RATE_LIMIT_REDIS_URL: 'redis://limits:6379/2',
    });
    expect(config.rateLimits).toEqual({
      readsPerSecond: 250,
      writesPerSecond: 50,
      checkoutPagePerMinute: 1200,
      consoleSignInPerMinute: 7,
      checkoutStreamsPerClient: 4,
      failedAuthPerMinute: 10,
      redisUrl: 'redis://limits:6379/2',
    });
  });

  it.each([
    ['RATE_LIMIT_READS_PER_SECOND', '0'],
    ['RATE_LIMIT_WRITES_PER_SECOND', 'many'],
    ['RATE_LIMIT_CHECKOUT_PAGE_PER_MINUTE', '2000000'],
    ['RATE_LIMIT_CHECKOUT_STREAMS_PER_CLIENT', '0'],
    ['RATE_LIMIT_FAILED_AUTH_PER_MINUTE', '1.5'],
    ['RATE_LIMIT_CONSOLE_SIGN_IN_PER_MINUTE', '0'],
    ['RATE_LIMIT_REDIS_URL', 'http://limits'],
  ])('refuses %s=%p naming the variable', (name, value) => {
    expect(() => loadAppConfig({ [name]: value })).toThrow(name);
  });

  it.each([
    ['2', 2],
    ['0', false],
    ['false', false],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7,uniquelocal', ['10.0.0.0/8', '192.168.1.7', 'uniquelocal']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
  ])('reads TRUST_PROXY=%p as %p', (value, setting) => {
    expect(loadAppConfig({ TRUST_PROXY: value }).trustProxy).toEqual(setting);
  });

  it.each(['true', '11', '10.0.0.0/33', '300.1.1.1', 'proxy.internal', '10.0.0.1,'])(
    'refuses TRUST_PROXY=%p',
    (value) => {
      expect(() => loadAppConfig({ TRUST_PROXY: value })).toThrow('TRUST_PROXY');
    },
  );
});
