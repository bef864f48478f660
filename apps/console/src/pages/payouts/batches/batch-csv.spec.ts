/// <reference types="jest" />
import {
  batchFromRecords,
  batchTemplate,
  batchTotals,
  BATCH_MAX_ROWS,
  sumDecimals,
} from './batch-csv';
import { parseCsv } from './csv';

const batchOf = (text: string) => batchFromRecords(parseCsv(text));
const HEADER = 'amount,currency,network,to_address,description,metadata\r\n';

describe('sumDecimals', () => {
  it('sums exactly where binary floats do not', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimals(['1.000001', '2', '3.5'])).toBe('6.500001');
    expect(sumDecimals(['0.000000000000000001', '999999999999.999999999999999999'])).toBe(
      '1000000000000',
    );
    expect(sumDecimals(['10', '20'])).toBe('30');
    expect(sumDecimals(['0.05', '0.05'])).toBe('0.1');
  });
});

describe('batchFromRecords', () => {
  it('maps the columns by their header, in any order, and leaves empty optional fields out', () => {
    const { items, errors } = batchOf(
      'to_address, Network ,currency,amount\r\nTaddr,tron,usdt,12.5\r\n',
    );
    expect(errors).toEqual([]);
    expect(items).toEqual([
      { amount: '12.5', currency: 'USDT', network: 'TRON', to_address: 'Taddr' },
    ]);
  });

  it('keeps description and metadata, the metadata as the JSON text the API stores', () => {
    const { items, errors } = batchOf(
      `${HEADER}1,USDT,TRON,Taddr,"Seller, #1","{""seller"":""s_1""}"\r\n`,
    );
    expect(errors).toEqual([]);
    expect(items[0]).toEqual({
      amount: '1',
      currency: 'USDT',
      network: 'TRON',
      to_address: 'Taddr',
      description: 'Seller, #1',
      metadata: '{"seller":"s_1"}',
    });
  });

  it('names each bad row by its CSV row (the header is row 1)', () => {
    const { errors } = batchOf(
      `${HEADER}1,USDT,TRON,Ta,,\r\n-2,USDT,TRON,Tb,,\r\n3,USDT,,Tc,,{oops\r\n4,USDT\r\n`,
    );
    expect(errors).toEqual([
      { row: 3, field: 'amount', code: 'amount_format' },
      { row: 4, field: 'network', code: 'required' },
      { row: 4, field: 'metadata', code: 'metadata_json' },
      { row: 5, field: 'row', code: 'field_count' },
      { row: 5, field: 'network', code: 'required' },
      { row: 5, field: 'to_address', code: 'required' },
    ]);
  });

  it('refuses a file without the required columns, with unknown ones, empty or too long', () => {
    expect(batchOf('amount,currency,network\r\n1,USDT,TRON\r\n').errors).toEqual([
      { row: 1, field: 'to_address', code: 'missing_column' },
    ]);
    expect(batchOf(`${HEADER.trim()},memo\r\n1,USDT,TRON,T,,,x\r\n`).errors).toEqual([
      { row: 1, field: 'memo', code: 'unknown_column' },
    ]);
    expect(batchOf('').errors).toEqual([{ row: 1, field: 'file', code: 'empty' }]);
    expect(batchOf(HEADER).errors).toEqual([{ row: 1, field: 'file', code: 'no_rows' }]);
    const rows = Array.from({ length: BATCH_MAX_ROWS + 1 }, () => '1,USDT,TRON,T,,').join('\r\n');
    expect(batchOf(HEADER + rows).errors).toEqual([
      { row: 1, field: 'file', code: 'too_many_rows' },
    ]);
    expect(batchOf(HEADER + rows.slice(rows.indexOf('\r\n') + 2)).errors).toEqual([]);
  });

  it('parses its own template without a problem', () => {
    const { items, errors } = batchOf(batchTemplate());
    expect(errors).toEqual([]);
    expect(items).toHaveLength(2);
  });
});

describe('batchTotals', () => {
  it('counts and sums per currency and network, exactly', () => {
    const { items } = batchOf(
      `${HEADER}0.1,USDT,TRON,Ta,,\r\n0.2,USDT,TRON,Tb,,\r\n5,USDC,TRON,Tc,,\r\n1.000001,USDT,BSC,0x1,,\r\n`,
    );
    expect(batchTotals(items)).toEqual([
      { currency: 'USDT', network: 'BSC', count: 1, amount: '1.000001' },
      { currency: 'USDC', network: 'TRON', count: 1, amount: '5' },
      { currency: 'USDT', network: 'TRON', count: 2, amount: '0.3' },
    ]);
  });
});
