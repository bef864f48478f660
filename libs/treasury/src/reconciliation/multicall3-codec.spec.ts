import { getAddress, hexlify, Interface, randomBytes } from 'ethers';
import { decodeAggregate3, encodeAggregate3 } from './multicall3-codec';

// ethers' own coder is the reference: slow on large batches, exact on small ones.
const MULTICALL = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const ERC20 = new Interface(['function balanceOf(address owner) view returns (uint256)']);
const address = () => getAddress(hexlify(randomBytes(20)));

describe('aggregate3 codec', () => {
  it('encodes calls exactly as the ABI does, whatever their data length', () => {
    const calls = [
      {
        target: address(),
        allowFailure: false,
        callData: ERC20.encodeFunctionData('balanceOf', [address()]),
      },
      { target: address(), allowFailure: true, callData: '0x' },
      { target: address(), allowFailure: false, callData: hexlify(randomBytes(70)) },
    ];
    expect(encodeAggregate3(calls)).toBe(MULTICALL.encodeFunctionData('aggregate3', [calls]));
    expect(encodeAggregate3([])).toBe(MULTICALL.encodeFunctionData('aggregate3', [[]]));
  });

  it('decodes answers exactly as the ABI does', () => {
    const results = [
      { success: true, returnData: '0x' + '00'.repeat(31) + '2a' },
      { success: false, returnData: '0x' },
      { success: true, returnData: hexlify(randomBytes(45)) },
    ];
    const encoded = MULTICALL.encodeFunctionResult('aggregate3', [results]);
    expect(decodeAggregate3(encoded)).toEqual(results);
  });

  it('refuses an answer cut short', () => {
    const encoded = MULTICALL.encodeFunctionResult('aggregate3', [
      [{ success: true, returnData: '0x' + '11'.repeat(32) }],
    ]);
    expect(() => decodeAggregate3(encoded.slice(0, -64))).toThrow('too short');
  });

  it('refuses an offset or a length that is no small hex number', () => {
    const encoded = MULTICALL.encodeFunctionResult('aggregate3', [
      [{ success: true, returnData: '0x' + '11'.repeat(32) }],
    ]);
    // The array's offset (the first word) made huge, then not hex.
    const huge = `0x${'1'.padStart(64, 'f')}${encoded.slice(66)}`;
    const notHex = `0x${'2g'.padStart(64, '0')}${encoded.slice(66)}`;
    expect(() => decodeAggregate3(huge)).toThrow('malformed');
    expect(() => decodeAggregate3(notHex)).toThrow('malformed');
  });

  it('takes a batch of 500 in milliseconds (ethers takes seconds)', () => {
    const calls = Array.from({ length: 500 }, () => ({
      target: address(),
      allowFailure: false,
      callData: ERC20.encodeFunctionData('balanceOf', [address()]),
    }));
    const answer = MULTICALL.encodeFunctionResult('aggregate3', [
      calls.map(() => ({ success: true, returnData: '0x' + '00'.repeat(31) + '07' })),
    ]);
    const started = Date.now();
    const encoded = encodeAggregate3(calls);
    const decoded = decodeAggregate3(answer);
    // Generous for a loaded machine: each takes a few milliseconds.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(encoded.length).toBe(2 + 8 + 64 * 2 + 500 * 64 + 500 * 192 * 2);
    expect(decoded).toHaveLength(500);
    expect(BigInt(decoded[499].returnData)).toBe(7n);
  });
});
