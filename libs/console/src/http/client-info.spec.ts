import { clientInfo } from './client-info';

const requestFrom = (ip: string | undefined, userAgent?: string) => ({
  ip,
  headers: userAgent === undefined ? {} : { 'user-agent': userAgent },
});

describe('clientInfo (audit and session addresses)', () => {
  it('keeps the whole IPv6 address, not the /64 rate limits count by', () => {
    expect(clientInfo(requestFrom('2001:db8:85a3:8d3:1319:8a2e:370:7348')).ip).toBe(
      '2001:db8:85a3:8d3:1319:8a2e:370:7348',
    );
  });

  it('writes an IPv4 client of a dual-stack socket as IPv4', () => {
    expect(clientInfo(requestFrom('::ffff:203.0.113.9')).ip).toBe('203.0.113.9');
    expect(clientInfo(requestFrom('203.0.113.9')).ip).toBe('203.0.113.9');
  });

  it('records no address when there is none, and a bounded user agent', () => {
    expect(clientInfo(requestFrom(undefined, 'x'.repeat(600)))).toEqual({
      ip: null,
      userAgent: 'x'.repeat(500),
    });
  });
});
