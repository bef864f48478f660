/**
 * A small RFC 4180 parser for the batch upload (no CSV library is installed, and this one is a
 * page of code): comma-separated fields, double-quoted fields holding commas, line breaks and
 * doubled quotes (""), records ended by CRLF, LF or a lone CR, a UTF-8 byte order mark ignored,
 * and blank lines (such as the file's last line break) skipped. A malformed quote is an error
 * with its line, never a guess: a payout file read wrong pays the wrong people.
 */

export class CsvError extends Error {
  constructor(
    message: string,
    /** 1-based line of the file where the problem is. */
    readonly line: number,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  fields: string[];
  /** 1-based line of the file where the record starts (a quoted line break spans lines). */
  line: number;
}

export function parseCsv(text: string): CsvRecord[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  // The current field was quoted: only a comma or a line break may follow its closing quote.
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let index = 0;

  const endField = () => {
    fields.push(field);
    field = '';
    quoted = false;
  };
  const endLine = () => {
    // A line with nothing on it is not a record (spreadsheets leave blank lines at the end).
    if (fields.length > 0 || field !== '' || quoted) {
      endField();
      records.push({ fields, line: recordLine });
    }
    fields = [];
  };

  while (index < input.length) {
    const char = input[index];
    if (char === ',') {
      endField();
      index += 1;
    } else if (char === '\r' || char === '\n') {
      endLine();
      index += char === '\r' && input[index + 1] === '\n' ? 2 : 1;
      line += 1;
      recordLine = line;
    } else if (quoted) {
      throw new CsvError(`Line ${line}: a closing quote must end its field.`, line);
    } else if (char === '"') {
      if (field !== '') throw new CsvError(`Line ${line}: a quote inside an unquoted field.`, line);
      const openedOn = line;
      index += 1;
      for (;;) {
        if (index >= input.length) {
          throw new CsvError(
            `A quoted field opened on line ${openedOn} is never closed.`,
            openedOn,
          );
        }
        const inner = input[index];
        if (inner === '"' && input[index + 1] === '"') {
          field += '"';
          index += 2;
        } else if (inner === '"') {
          index += 1;
          break;
        } else {
          if (inner === '\n' || (inner === '\r' && input[index + 1] !== '\n')) line += 1;
          field += inner;
          index += 1;
        }
      }
      quoted = true;
    } else {
      field += char;
      index += 1;
    }
  }
  endLine();
  return records;
}

/** One field as CSV: quoted when it holds a comma, a quote or a line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
