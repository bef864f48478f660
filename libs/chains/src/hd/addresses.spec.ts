import { isValidAddress, normalizeAddress } from './addresses';

const CHECKSUMMED = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const TRON = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';

describe('isValidAddress', () => {
  it.each([CHECKSUMMED, CHECKSUMMED.toLowerCase(), `0x${CHECKSUMMED.slice(2).toUpperCase()}`])(
    'accepts the EVM address %s',
    (address) => expect(isValidAddress('EVM', address)).toBe(true),
  );

  it.each([
    ['a wrong checksum', '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['a short address', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226'],
    ['no 0x prefix', 'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['an ICAP address', 'XE7338O073KYGTWWZN0F2WZ0R8PX5ZPPZS'],
    ['a TRON address', TRON],
    ['a number', 42],
    ['nothing', undefined],
  ])('refuses %s on EVM', (_label, address) => {
    expect(isValidAddress('EVM', address)).toBe(false);
  });

  it('accepts a base58 TRON address', () => {
    expect(isValidAddress('TRON', TRON)).toBe(true);
    expect(isValidAddress('TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
  });

  it.each([
    ['the 41-prefixed hex form', '41c7e1f1b0a7e8a2d5e1b7f6c2c7e3b0e3c8d0d1a2'],
    ['a broken checksum', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdJ'],
    ['an EVM address', CHECKSUMMED],
    ['an empty string', ''],
  ])('refuses %s on TRON', (_label, address) => {
    expect(isValidAddress('TRON', address)).toBe(false);
  });
});

describe('normalizeAddress', () => {
  it('checksums EVM addresses', () => {
    expect(normalizeAddress('EVM', CHECKSUMMED.toLowerCase())).toBe(CHECKSUMMED);
  });

  it('keeps TRON addresses', () => {
    expect(normalizeAddress('TRON', TRON)).toBe(TRON);
  });

  it('throws on an invalid address', () => {
    expect(() => normalizeAddress('EVM', '0x1234')).toThrow('Not a valid EVM address');
    expect(() => normalizeAddress('TRON', CHECKSUMMED)).toThrow('Not a valid TRON address');
  });
});
