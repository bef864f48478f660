/** The longest `last_error` stored and shown. */
export const MAX_ERROR_SUMMARY_LENGTH = 200;

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]*/gi;
// "apikey=abc", "token: abc", "password=abc": the name stays, the value goes.
const NAMED_SECRET_PATTERN =
  /\b(api[-_]?key|access[-_]?token|auth[-_]?token|token|secret|password|passwd|key)(\s*[=:]\s*)"?[^\s"&,;]+"?/gi;
const AUTH_SCHEME_PATTERN = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi;
// Long words mixing letters and digits look like keys (Infura, Alchemy, QuickNode...); 0x hex
// (hashes, addresses) is public and left alone.
const LONG_WORD_PATTERN = /\b[A-Za-z0-9_-]{24,}\b/g;

function looksLikeKey(word: string): boolean {
  if (/^0x[0-9a-fA-F]+$/.test(word)) return false;
  return /[0-9]/.test(word) && /[A-Za-z]/.test(word);
}

/**
 * An RPC error as it may be shown to every merchant: no URL (private endpoints carry their key
 * in it), no credential-looking value, one line, at most MAX_ERROR_SUMMARY_LENGTH characters.
 */
export function errorSummary(reason: string): string {
  const cleaned = String(reason)
    .replace(URL_PATTERN, '[url]')
    .replace(AUTH_SCHEME_PATTERN, '$1 [redacted]')
    .replace(NAMED_SECRET_PATTERN, '$1$2[redacted]')
    .replace(LONG_WORD_PATTERN, (word) => (looksLikeKey(word) ? '[redacted]' : word))
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return 'unknown error';
  return cleaned.length <= MAX_ERROR_SUMMARY_LENGTH
    ? cleaned
    : `${cleaned.slice(0, MAX_ERROR_SUMMARY_LENGTH - 1).trimEnd()}…`;
}
