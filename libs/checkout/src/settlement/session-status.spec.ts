import Decimal from 'decimal.js';
import { sessionStatusFor } from './session-status';

const expiresAt = new Date('2026-11-22T11:00:00Z');
const before = new Date('2026-11-22T10:30:00Z');
const after = new Date('2026-11-22T11:00:00Z');
const state = (received: string, now: Date, tolerancePercent = '0.1', amount = '100') => ({
  amount: new Decimal(amount),
  received: new Decimal(received),
  expiresAt,
  now,
  tolerancePercent: new Decimal(tolerancePercent),
  toleranceMax: new Decimal('1'),
});

describe('sessionStatusFor', () => {
  it.each([
    ['0', before, 'Pending'],
    ['50', before, 'Pending'],
    ['99.89', before, 'Pending'],
    ['99.9', before, 'Paid'],
    ['100', before, 'Paid'],
    ['150', before, 'Paid'],
    ['0', after, 'Expired'],
    ['0.000001', after, 'Underpaid'],
    ['100', after, 'Paid'],
  ])('received %s at %s is %s', (received, now, expected) => {
    expect(sessionStatusFor(state(received, now as Date))).toBe(expected);
  });

  it('caps the tolerance: a large session is never Paid far short of its amount', () => {
    // 0.1 % of 10,000,000 would be 10,000; the cap keeps it at 1.
    expect(sessionStatusFor(state('9990000', before, '0.1', '10000000'))).toBe('Pending');
    expect(sessionStatusFor(state('9999998.99', before, '0.1', '10000000'))).toBe('Pending');
    expect(sessionStatusFor(state('9999999', before, '0.1', '10000000'))).toBe('Paid');
  });

  it('with zero tolerance needs the exact amount', () => {
    expect(sessionStatusFor(state('99.999999', before, '0'))).toBe('Pending');
    expect(sessionStatusFor(state('100', before, '0'))).toBe('Paid');
  });
});
