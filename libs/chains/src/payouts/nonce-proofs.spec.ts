import { NonceProof, NonceProofHints } from './nonce-proofs';

const proof = (nonce: number): NonceProof => ({
  address: '0x00000000000000000000000000000000000000aa',
  nonce,
  blockNumber: 100 + nonce,
  blockHash: `0x${nonce.toString(16).padStart(64, '0')}`,
  txHash: `0x${(nonce + 1).toString(16).padStart(64, '0')}`,
  byAuthorization: false,
});

describe('NonceProofHints', () => {
  it('keeps at most its capacity, dropping the least recently set', () => {
    const hints = new NonceProofHints(3);
    for (const nonce of [1, 2, 3]) hints.set(`a:${nonce}`, proof(nonce));
    hints.set('a:1', proof(1)); // set again: now the newest
    hints.set('a:4', proof(4));
    expect(hints.size).toBe(3);
    expect(hints.get('a:2')).toBeUndefined();
    expect(hints.get('a:1')).toEqual(proof(1));
    expect(hints.get('a:3')).toEqual(proof(3));
    expect(hints.get('a:4')).toEqual(proof(4));
  });

  it('replaces the proof of a nonce proven again in another block', () => {
    const hints = new NonceProofHints(3);
    hints.set('a:1', proof(1));
    const reorged = { ...proof(1), blockHash: `0x${'ff'.repeat(32)}` };
    hints.set('a:1', reorged);
    expect(hints.size).toBe(1);
    expect(hints.get('a:1')).toEqual(reorged);
  });
});
