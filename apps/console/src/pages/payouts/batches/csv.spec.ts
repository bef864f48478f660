/// <reference types="jest" />
import { csvField, CsvError, parseCsv } from './csv';

const fieldsOf = (text: string) => parseCsv(text).map((record) => record.fields);

describe('parseCsv (RFC 4180)', () => {
  it('reads plain records ended by CRLF, LF or a lone CR, with or without a last line break', () => {
    expect(fieldsOf('a,b\r\nc,d\r\n')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(fieldsOf('a,b\nc,d')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(fieldsOf('a,b\rc,d\r')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('ignores a UTF-8 byte order mark, as spreadsheets write one', () => {
    expect(fieldsOf('\uFEFFamount,currency\r\n1,USDT\r\n')).toEqual([
      ['amount', 'currency'],
      ['1', 'USDT'],
    ]);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks', () => {
    const records = parseCsv('id,note\r\n1,"a, ""b""\r\nc"\r\n2,"x\ny"\r\n3,""\r\n');
    expect(records.map((record) => record.fields)).toEqual([
      ['id', 'note'],
      ['1', 'a, "b"\r\nc'],
      ['2', 'x\ny'],
      ['3', ''],
    ]);
    // The line each record starts on, counting the quoted line breaks.
    expect(records.map((record) => record.line)).toEqual([1, 2, 4, 6]);
  });

  it('keeps empty fields, leading and trailing, and skips blank lines', () => {
    expect(fieldsOf(',a,\r\n\r\n\r\nb,,\r\n\r\n')).toEqual([
      ['', 'a', ''],
      ['b', '', ''],
    ]);
    expect(fieldsOf('')).toEqual([]);
    expect(fieldsOf('\uFEFF\r\n')).toEqual([]);
  });

  it('refuses malformed quotes with their line, never guessing', () => {
    expect(() => parseCsv('a,b\r\n1,"open\r\n')).toThrow(
      new CsvError('A quoted field opened on line 2 is never closed.', 2),
    );
    expect(() => parseCsv('a\r\n"x"y\r\n')).toThrow(/Line 2: a closing quote must end its field/);
    expect(() => parseCsv('a\r\nx"y"\r\n')).toThrow(/Line 2: a quote inside an unquoted field/);
    try {
      parseCsv('a\n"\n\n"z\n');
    } catch (error) {
      expect((error as CsvError).line).toBe(4);
    }
    expect.assertions(4);
  });

  it('writes fields the parser reads back unchanged', () => {
    const values = ['plain', 'a,b', 'say "hi"', 'two\r\nlines', ''];
    expect(fieldsOf(values.map(csvField).join(','))).toEqual([values]);
  });
});
