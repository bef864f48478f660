import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('ignores key order at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [2, { y: 2, z: 1 }] }, b: 1 }),
    );
  });

  it('keeps values that differ apart', () => {
    expect(canonicalJson({ amount: '10' })).not.toBe(canonicalJson({ amount: '10.0' }));
    expect(canonicalJson({ amount: '10' })).not.toBe(canonicalJson({ amount: 10 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('drops undefined members like JSON does', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
});
