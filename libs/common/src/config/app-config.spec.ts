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
    });
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
  ])('refuses %p naming the variable', (env, name) => {
    expect(() => loadAppConfig(env)).toThrow(name);
  });

  it('requires every location and key in production', () => {
    expect(() => loadAppConfig({ APP_ENV: 'production' })).toThrow(
      /DATABASE_URL is required[\s\S]*REDIS_URL is required[\s\S]*PUBLIC_URL is required[\s\S]*HD_EVM_XPUB is required[\s\S]*HD_TRON_XPUB is required/,
    );
  });

  it('strips a trailing slash from PUBLIC_URL', () => {
    expect(loadAppConfig({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe(
      'https://pay.example.com',
    );
  });
});
