import { csvField, csvRecord } from './csv';

describe('csv', () => {
  it('leaves plain fields and numbers as they are', () => {
    expect(csvRecord(['txn_1', 'payment', '-10.5', '0', null])).toBe('txn_1,payment,-10.5,0,\r\n');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rlf')).toBe('"cr\rlf"');
    expect(csvField(' padded ')).toBe('" padded "');
  });

  it('defuses spreadsheet formulas but not signed numbers', () => {
    expect(csvField('=SUM(A1:A9)')).toBe("'=SUM(A1:A9)");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('+1-2')).toBe("'+1-2");
    expect(csvField('-3')).toBe('-3');
    expect(csvField('=1,2')).toBe(`"'=1,2"`);
  });
});
