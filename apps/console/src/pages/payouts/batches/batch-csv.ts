import { csvField, CsvRecord } from './csv';

/** The API's limit per batch (libs/payouts PAYOUT_BATCH_MAX_ITEMS). */
export const BATCH_MAX_ROWS = 1000;

export const REQUIRED_COLUMNS = ['amount', 'currency', 'network', 'to_address'] as const;
export const OPTIONAL_COLUMNS = ['description', 'metadata'] as const;
const KNOWN_COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];

/** One payout of the batch exactly as POST /v1/payouts takes it: money stays a decimal string. */
export interface BatchItem {
  amount: string;
  currency: string;
  network: string;
  to_address: string;
  description?: string;
  metadata?: string;
}

/** A problem of one row, found in the browser or named by the API's 422 (index = row - 2). */
export interface RowError {
  /** The CSV row, counting the header as row 1 (what a spreadsheet shows). */
  row: number;
  field: string;
  /** The browser's own check (a key of payoutBatches.error.*) or the API's error code. */
  code: string;
  /** The API's words for it; the browser's own checks are worded by the page. */
  message?: string;
}

export interface ParsedBatch {
  items: BatchItem[];
  /** Problems that stop the upload before anything is sent. */
  errors: RowError[];
}

const AMOUNT = /^\d+(\.\d+)?$/;

/** The CSV row of the API's item index: the header is row 1, the first item row 2. */
export function rowOfIndex(index: number): number {
  return index + 2;
}

/**
 * The records of an uploaded file as the batch's items. The header names the columns (any order,
 * case and spaces ignored); the browser checks only what it needs to show totals and send the
 * right fields, and the API checks the rest and answers every refused item.
 */
export function batchFromRecords(records: CsvRecord[]): ParsedBatch {
  const errors: RowError[] = [];
  const [header, ...rows] = records;
  if (!header) return { items: [], errors: [{ row: 1, field: 'file', code: 'empty' }] };
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  for (const name of REQUIRED_COLUMNS) {
    if (!columns.includes(name)) errors.push({ row: 1, field: name, code: 'missing_column' });
  }
  columns.forEach((name) => {
    if (!KNOWN_COLUMNS.includes(name)) errors.push({ row: 1, field: name, code: 'unknown_column' });
  });
  if (rows.length === 0) errors.push({ row: 1, field: 'file', code: 'no_rows' });
  if (rows.length > BATCH_MAX_ROWS) errors.push({ row: 1, field: 'file', code: 'too_many_rows' });
  if (errors.length > 0) return { items: [], errors };

  const items = rows.map((record, index) => {
    const row = rowOfIndex(index);
    if (record.fields.length !== columns.length) {
      errors.push({ row, field: 'row', code: 'field_count' });
    }
    const cell = (name: string) => {
      const at = columns.indexOf(name);
      return at < 0 ? '' : (record.fields[at] ?? '').trim();
    };
    const item: BatchItem = {
      amount: cell('amount'),
      currency: cell('currency').toUpperCase(),
      network: cell('network').toUpperCase(),
      to_address: cell('to_address'),
    };
    for (const name of REQUIRED_COLUMNS) {
      if (item[name] === '') errors.push({ row, field: name, code: 'required' });
    }
    if (item.amount !== '' && !AMOUNT.test(item.amount)) {
      errors.push({ row, field: 'amount', code: 'amount_format' });
    }
    const description = cell('description');
    if (description) item.description = description;
    const metadata = cell('metadata');
    if (metadata) {
      if (!isJson(metadata)) errors.push({ row, field: 'metadata', code: 'metadata_json' });
      item.metadata = metadata;
    }
    return item;
  });
  return { items, errors };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The rows and amount of one currency on one network. */
export interface BatchTotal {
  currency: string;
  network: string;
  count: number;
  amount: string;
}

/**
 * Totals per currency and network, summed exactly: each amount becomes a BigInt of units at the
 * group's largest number of decimals, so no amount ever passes through a binary float.
 */
export function batchTotals(items: readonly BatchItem[]): BatchTotal[] {
  const groups = new Map<string, BatchItem[]>();
  for (const item of items) {
    if (!AMOUNT.test(item.amount)) continue;
    const key = `${item.currency}\u0000${item.network}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()]
    .map((group) => ({
      currency: group[0].currency,
      network: group[0].network,
      count: group.length,
      amount: sumDecimals(group.map((item) => item.amount)),
    }))
    .sort((a, b) => a.network.localeCompare(b.network) || a.currency.localeCompare(b.currency));
}

/** The exact sum of non-negative decimal strings, as a decimal string without trailing zeros. */
export function sumDecimals(amounts: readonly string[]): string {
  const scale = Math.max(0, ...amounts.map((amount) => (amount.split('.')[1] ?? '').length));
  const units = amounts.reduce((sum, amount) => {
    const [whole, fraction = ''] = amount.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  if (scale === 0) return units.toString();
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, -scale);
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The downloadable template: the header and two example rows (one with metadata). */
export function batchTemplate(): string {
  const rows = [
    ['amount', 'currency', 'network', 'to_address', 'description', 'metadata'],
    ['250.00', 'USDT', 'TRON', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'Seller payout #8812', ''],
    [
      '99.5',
      'USDC',
      'ETHEREUM',
      '0x742d35Cc6634C0532925a3b844Bc454e4438f44e',
      'Refund, order 1042',
      '{"seller_id":"s_1842"}',
    ],
  ];
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
