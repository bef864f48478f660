import { metricsAccessAllowed } from './metrics-token';

describe('metricsAccessAllowed', () => {
  const token = 'metrics-token-0123456789';

  it('lets everyone in when no token is configured', () => {
    expect(metricsAccessAllowed(undefined, undefined)).toBe(true);
  });

  it('wants the configured token as a bearer token', () => {
    expect(metricsAccessAllowed(token, `Bearer ${token}`)).toBe(true);
    expect(metricsAccessAllowed(token, `bearer ${token}`)).toBe(true);
    expect(metricsAccessAllowed(token, undefined)).toBe(false);
    expect(metricsAccessAllowed(token, token)).toBe(false);
    expect(metricsAccessAllowed(token, 'Bearer wrong')).toBe(false);
    expect(metricsAccessAllowed(token, `Bearer ${token}x`)).toBe(false);
  });
});
