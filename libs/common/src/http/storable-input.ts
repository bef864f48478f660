/** Containers (objects and arrays) deeper than this in a body or query are refused. */
export const MAX_INPUT_DEPTH = 32;

export interface InputProblem {
  /** The parameter to name in the error: `metadata.note`, `search_text`, `id`, a header name. */
  param?: string;
  message: string;
}

// A NUL (PostgreSQL text and jsonb cannot hold U+0000) or a UTF-16 surrogate without its partner
// (no UTF-8 encoding exists; jsonb refuses the escape, text would silently get U+FFFD). With the
// `u` flag a well-formed pair is one code point, so only an unpaired half matches the range.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

function describeUnstorable(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\u0000' ? 'a NUL character' : 'an unpaired UTF-16 surrogate';
}

const joinPath = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

/**
 * The first string in `value` (keys included) that cannot be stored as UTF-8 text, or the first
 * container nested deeper than MAX_INPUT_DEPTH. `path` names `value` itself ('' for a whole body).
 * Too deep a nesting is reported as the top-level field it is in (the full path could be huge).
 * Recursion stops at MAX_INPUT_DEPTH, so a hostile 64 kB body of `[[[[...` cannot exhaust the stack.
 */
export function findInputProblem(value: unknown, path = '', depth = 0): InputProblem | null {
  if (typeof value === 'string') {
    const what = describeUnstorable(value);
    return what
      ? { param: path || undefined, message: `${path || 'The body'} contains ${what}.` }
      : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_INPUT_DEPTH) {
    const field = path.split('.')[0];
    return {
      param: field || undefined,
      message: `${field || 'The body'} is nested more than ${MAX_INPUT_DEPTH} levels deep.`,
    };
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = describeUnstorable(key);
    if (keyProblem) {
      return {
        param: path || undefined,
        message: `A field name ${path ? `in ${path} ` : ''}contains ${keyProblem}.`,
      };
    }
    const problem = findInputProblem(item, joinPath(path, key), depth + 1);
    if (problem) return problem;
  }
  return null;
}
