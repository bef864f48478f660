import { evmTxHashOption, weiOption } from './cli-options';
import { UsageError } from './usage-error';

describe('weiOption', () => {
  it('reads a whole number of wei as a bigint, exactly', () => {
    expect(weiOption({ 'fee-wei': '0' }, 'fee-wei')).toBe(0n);
    expect(weiOption({ 'fee-wei': '21000000000000' }, 'fee-wei')).toBe(21_000_000_000_000n);
    // Beyond Number.MAX_SAFE_INTEGER: no digit lost.
    expect(weiOption({ 'fee-wei': '123456789012345678901234567890' }, 'fee-wei')).toBe(
      123456789012345678901234567890n,
    );
  });

  it.each([
    [undefined],
    [true],
    [''],
    ['-1'],
    ['+1'],
    ['1.5'],
    ['1e18'],
    ['0x10'],
    [' 1'],
    ['01'],
    ['1,000'],
    ['1234567890123456789012345678901'],
  ])('refuses %p as a usage error naming the option', (given) => {
    expect(() => weiOption({ 'fee-wei': given }, 'fee-wei')).toThrow(
      new UsageError(
        '--fee-wei must be a whole number of wei (digits only, at most 30), like 21000000000000.',
      ),
    );
  });
});

describe('evmTxHashOption', () => {
  const hash = `0x${'ab'.repeat(32)}`;

  it('lower-cases a hash as an explorer may print it, trimmed', () => {
    expect(evmTxHashOption({ tx: ` 0x${'AB'.repeat(32)} ` }, 'tx')).toBe(hash);
    expect(evmTxHashOption({ tx: hash }, 'tx')).toBe(hash);
  });

  it.each([
    [undefined],
    [true],
    [''],
    [hash.slice(2)],
    [hash.slice(0, 65)],
    [`${hash}00`],
    [`0x${'g'.repeat(64)}`],
    [`0X${'ab'.repeat(32)}`.replace('0X', '0x ')],
  ])('refuses %p as a usage error naming the option', (given) => {
    expect(() => evmTxHashOption({ tx: given }, 'tx')).toThrow(
      new UsageError('--tx must be a transaction hash: 0x and 64 hex digits.'),
    );
  });
});
