import { Logger } from '@nestjs/common';
import {
  RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS,
  ReceiptFeeUnknown,
  ReceiptsWithoutFee,
  wholeReceiptOr,
  receiptsWithoutFee,
} from './receipts-without-fee';

const TX = `0x${'01'.repeat(32)}`;

describe('ReceiptsWithoutFee (review r9b follow-up, H1)', () => {
  let error: jest.SpyInstance;
  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => error.mockRestore());

  it('counts a receipt per network until it is answered whole, and alerts once past 10 minutes', () => {
    const register = new ReceiptsWithoutFee();
    const start = 1_000_000;
    register.noted('BASE', TX, 'no l1Fee', start);
    register.noted('BASE', TX.toUpperCase().replace('0X', '0x'), 'no l1Fee', start + 1_000);
    expect(register.counts(start + 1_000)).toEqual(new Map([['BASE', 1]]));
    expect(error).not.toHaveBeenCalled();
    register.noted('BASE', TX, 'no l1Fee', start + RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS);
    register.noted('BASE', TX, 'no l1Fee', start + RECEIPT_WITHOUT_FEE_ALERT_AFTER_MS + 1);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0][1]).toMatch(/docs\/operations\.md/);
    register.answered('BASE', TX);
    expect(register.counts(start)).toEqual(new Map());
  });

  it('forgets a receipt no longer asked for', () => {
    const register = new ReceiptsWithoutFee();
    register.noted('OPTIMISM', TX, 'no l1Fee', 0);
    expect(register.counts(29 * 60_000).get('OPTIMISM')).toBe(1);
    expect(register.counts(30 * 60_000).get('OPTIMISM')).toBeUndefined();
  });

  it('gives back the read without its fee once every URL refused it, noted', async () => {
    const answer = { feeWei: null };
    await expect(
      wholeReceiptOr('BASE', () =>
        Promise.reject(new ReceiptFeeUnknown(TX, 'BASE', 'no l1Fee', answer)),
      ),
    ).resolves.toBe(answer);
    expect(receiptsWithoutFee.counts().get('BASE')).toBe(1);
    receiptsWithoutFee.answered('BASE', TX);
    await expect(wholeReceiptOr('BASE', () => Promise.reject(new Error('x')))).rejects.toThrow('x');
  });
});
