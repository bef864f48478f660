import fc from 'fast-check';
import { findInputProblem, MAX_INPUT_DEPTH } from './storable-input';

/** `levels` arrays around a string. */
const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
};

describe('findInputProblem', () => {
  it('passes ordinary input, emoji and control characters other than NUL', () => {
    expect(
      findInputProblem({
        name: 'Café 😀',
        tab: 'a\tb\u0001',
        amounts: ['1', 2, true, null],
        metadata: { note: '💸' },
      }),
    ).toBeNull();
  });

  it.each([
    [{ name: 'a\u0000b' }, 'name', 'name contains a NUL character.'],
    [
      { metadata: { note: 'x\ud800' } },
      'metadata.note',
      'metadata.note contains an unpaired UTF-16 surrogate.',
    ],
    [
      { metadata: { note: '\udc00x' } },
      'metadata.note',
      'metadata.note contains an unpaired UTF-16 surrogate.',
    ],
    [
      { events: ['ok', '\ud83d\ude00\ud83d'] },
      'events.1',
      'events.1 contains an unpaired UTF-16 surrogate.',
    ],
    [
      { metadata: { 'k\u0000': 'v' } },
      'metadata',
      'A field name in metadata contains a NUL character.',
    ],
  ])('names the parameter of %j', (input, param, message) => {
    expect(findInputProblem(input)).toEqual({ param, message });
  });

  it('names a bad top-level key without a param, and a bad header or path value by its name', () => {
    expect(findInputProblem({ '\u0000': 1 })).toEqual({
      message: 'A field name contains a NUL character.',
    });
    expect(findInputProblem('key\u0000', 'Idempotency-Key')).toEqual({
      param: 'Idempotency-Key',
      message: 'Idempotency-Key contains a NUL character.',
    });
  });

  it(`allows ${MAX_INPUT_DEPTH} levels of nesting and refuses one more, naming the top field`, () => {
    expect(findInputProblem({ metadata: nested(MAX_INPUT_DEPTH - 1) })).toBeNull();
    expect(findInputProblem({ metadata: nested(MAX_INPUT_DEPTH) })).toEqual({
      param: 'metadata',
      message: `metadata is nested more than ${MAX_INPUT_DEPTH} levels deep.`,
    });
    expect(findInputProblem(nested(MAX_INPUT_DEPTH))).toBeNull();
    // A bare array body: its first index is the top-level field.
    expect(findInputProblem(nested(MAX_INPUT_DEPTH + 1))).toEqual({
      param: '0',
      message: `0 is nested more than ${MAX_INPUT_DEPTH} levels deep.`,
    });
  });

  it('survives 100,000 levels without exhausting the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(findInputProblem({ a: deep })?.param).toBe('a');
  });

  it('flags exactly the strings that UTF-8 cannot round-trip or that contain NUL', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const storable = !text.includes('\u0000') && Buffer.from(text, 'utf8').toString() === text;
        expect(findInputProblem({ text }) === null).toBe(storable);
      }),
      { numRuns: 2000 },
    );
  });
});
