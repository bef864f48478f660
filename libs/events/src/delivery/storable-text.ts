const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text a receiver controls (its response body, or an error about it), made storable in a
 * PostgreSQL text column: NUL (U+0000) removed, since PostgreSQL refuses it in text and the whole
 * attempt would go unrecorded; lone surrogates replaced with U+FFFD, since they are no UTF-8.
 * Invalid UTF-8 bytes were already replaced when the body was decoded (Buffer#toString).
 */
export function storableText(text: string | null): string | null {
  if (text === null) return null;
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd') || null;
}
