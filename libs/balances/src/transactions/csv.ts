/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or leading or
 * trailing space, quotes doubled. A field starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is prefixed with a single quote so that a spreadsheet shows it rather than run it as a
 * formula (OWASP "CSV injection"), unless it is a number: "-10.5" stays a number.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  let text = value;
  if (/^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  if (/[",\r\n]|^\s|\s$/.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

/** A CSV record, CRLF-terminated as RFC 4180 says. */
export function csvRecord(values: Array<string | null>): string {
  return values.map(csvField).join(',') + '\r\n';
}
