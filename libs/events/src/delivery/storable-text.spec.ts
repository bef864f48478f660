import { storableText } from './storable-text';

describe('storableText', () => {
  it('removes NUL, which PostgreSQL refuses in text', () => {
    expect(storableText('ok\u0000done\u0000')).toBe('okdone');
  });

  it('replaces a lone surrogate, which is no UTF-8', () => {
    expect(storableText('a\ud800b')).toBe('a\ufffdb');
  });

  it('keeps other text, and empty means none', () => {
    expect(storableText('é 😀 \t\n\u0001')).toBe('é 😀 \t\n\u0001');
    expect(storableText('\u0000')).toBeNull();
    expect(storableText(null)).toBeNull();
  });
});
