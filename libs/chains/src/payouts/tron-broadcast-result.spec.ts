import { TronResponseError } from '../adapters/tron/tron-errors';
import { classifyTronBroadcast } from './tron-broadcast-result';

const TX_ID = 'ff44a2823a870c12f12a4ca6e7647650356bc2bb5e02c5855312cf2db4c950c1';
const hexOf = (text: string): string => Buffer.from(text, 'utf8').toString('hex');
const refusal = (code: string, message: string) => ({ code, message: hexOf(message), txid: TX_ID });

describe('classifyTronBroadcast', () => {
  it('reads acceptance and the answers that mean the node has it', () => {
    expect(classifyTronBroadcast({ result: true, txid: TX_ID })).toEqual({ kind: 'accepted' });
    expect(classifyTronBroadcast(refusal('DUP_TRANSACTION_ERROR', 'Dup transaction.'))).toEqual({
      kind: 'already_known',
    });
  });

  it('reads an expired transaction and one whose reference block is unknown as expired', () => {
    const expiration = refusal(
      'TRANSACTION_EXPIRATION_ERROR',
      'Transaction expiration, transaction expiration time is 1700000060000, but headBlockTime is 1700000061000',
    );
    expect(classifyTronBroadcast(expiration)).toEqual({ kind: 'expired' });
    expect(classifyTronBroadcast(refusal('TAPOS_ERROR', 'Tapos check error'))).toEqual({
      kind: 'expired',
    });
  });

  it.each([
    ['SIGERROR', 'Validate signature error: miss sig or contract'],
    ['BANDWITH_ERROR', 'Account resource insufficient error.'],
    [
      'CONTRACT_VALIDATE_ERROR',
      'Contract validate error : No contract or not a valid smart contract',
    ],
    ['CONTRACT_EXE_ERROR', 'REVERT opcode executed'],
    ['TOO_BIG_TRANSACTION_ERROR', 'Transaction size is too big.'],
  ])('reads %s as rejected with the decoded message', (code, message) => {
    expect(classifyTronBroadcast(refusal(code, message))).toEqual({
      kind: 'rejected',
      reason: `${code}: ${message}`,
    });
  });

  it.each([
    'SERVER_BUSY',
    'NO_CONNECTION',
    'NOT_ENOUGH_EFFECTIVE_CONNECTION',
    'BLOCK_UNSOLIDIFIED',
    'OTHER_ERROR',
    'A_CODE_FROM_A_LATER_VERSION',
  ])('throws a transient error for %s: the node did not decide', (code) => {
    expect(() => classifyTronBroadcast(refusal(code, 'busy'))).toThrow(
      expect.objectContaining({ transient: true, message: `broadcast not taken: ${code} (busy)` }),
    );
  });

  it('shortens a long message and keeps raw hex out of it', () => {
    const signature = 'ab'.repeat(65);
    const result = classifyTronBroadcast(
      refusal(
        'SIGERROR',
        `Validate signature error: ${signature} is signed by T... ${'x'.repeat(300)}`,
      ),
    );
    expect(result.kind === 'rejected' && result.reason).toMatch(
      /^SIGERROR: Validate signature error: \[hex\] is signed by T\.\.\. x+\.\.\.$/,
    );
  });

  it('treats node errors like every TRON read, and other shapes as malformed', () => {
    const busy = { Error: 'class java.lang.IllegalAccessException : lack of computing resources' };
    expect(() => classifyTronBroadcast(busy)).toThrow(expect.objectContaining({ transient: true }));
    for (const malformed of [[], 'ok', {}, { result: false }]) {
      expect(() => classifyTronBroadcast(malformed)).toThrow(TronResponseError);
      expect(() => classifyTronBroadcast(malformed)).toThrow(
        expect.objectContaining({ transient: false }),
      );
    }
  });
});
