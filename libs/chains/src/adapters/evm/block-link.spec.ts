import { InvalidBlockError, parseBlockLink } from './block-link';

const HASH = `0x${'ab'.repeat(32)}`;
const PARENT = `0x${'CD'.repeat(32)}`;
const BLOOM = `0x${'00'.repeat(255)}01`;

describe('parseBlockLink', () => {
  it("keeps the hash, the parent and the header's logsBloom", () => {
    const raw = { number: '0x10', hash: HASH, parentHash: PARENT, logsBloom: BLOOM };
    expect(parseBlockLink(raw, 16)).toEqual({
      hash: HASH,
      parentHash: PARENT.toLowerCase(),
      logsBloom: BLOOM,
    });
  });

  it('leaves out a missing or malformed bloom (it only ever proves an absence)', () => {
    const raw = { number: '0x10', hash: HASH, parentHash: PARENT, logsBloom: '0x12' };
    expect(parseBlockLink(raw, 16)).toEqual({ hash: HASH, parentHash: PARENT.toLowerCase() });
  });

  it('answers null for a block the node does not have, and refuses another block', () => {
    expect(parseBlockLink(null, 16)).toBeNull();
    const raw = { number: '0x11', hash: HASH, parentHash: PARENT };
    expect(() => parseBlockLink(raw, 16)).toThrow(InvalidBlockError);
    expect(() => parseBlockLink({ number: '0x10', hash: 'x', parentHash: PARENT }, 16)).toThrow(
      /valid hash/,
    );
  });
});
