import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOSTED_PAGE_ASSETS_DIR } from './assets-dir';
import { LOCALES, formatWithSymbols, numberSymbols } from './locale';
import { MESSAGES } from './messages';
import { compareDecimals, formatRemaining, pageStateOf, qrVersion } from './page-state';
import { PublicSessionView } from './public-session-view';
import { safeHttpUrl, statusTexts } from './render-page';
import { sessionView } from './testing/session-view.fixture';

/** page.js, loaded as CommonJS: outside a browser it only exports its pure functions. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const script = require(join(HOSTED_PAGE_ASSETS_DIR, 'page.js')) as {
  compareDecimals: typeof compareDecimals;
  pageStateOf: typeof pageStateOf;
  qrVersion: typeof qrVersion;
  formatRemaining: typeof formatRemaining;
  formatWithSymbols: (value: string, symbols: object, minimumFractionDigits?: number) => string;
  translate: (messages: object, key: string, params?: object) => string;
  statusTexts: (
    view: PublicSessionView,
    state: object,
    messages: object,
    symbols: object,
  ) => { text: string; hint: string; detail: string };
  safeHttpUrl: (value: string | null) => string | null;
};

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const LATER = '2030-01-01T12:30:00.000Z';
const EARLIER = '2030-01-01T11:30:00.000Z';

const tx = (
  amount: string,
  status: 'Pending' | 'Confirmed' | 'Reverted',
  confirmations: number,
  hash = '0xaa',
) => ({ tx_hash: hash, amount, status, confirmations });

/** One view per situation the page must show differently. */
const CASES: Array<[string, Partial<PublicSessionView>, object]> = [
  [
    'waiting',
    {},
    { phase: 'waiting', payable: true, headline: 'amountToSend', headlineAmount: '10.5' },
  ],
  [
    'seen, confirming the full amount',
    { amount_seen: '10.5', amount_due: '0', transactions: [tx('10.5', 'Pending', 4)] },
    { phase: 'confirming', payable: false, confirmations: { n: 4, m: 12 } },
  ],
  [
    'partly seen and confirming: still due in the header',
    { amount_seen: '4', amount_due: '6.5', transactions: [tx('4', 'Pending', 1)] },
    {
      phase: 'confirming',
      payable: true,
      headline: 'amountStillDue',
      headlineAmount: '6.5',
      showReceived: true,
    },
  ],
  [
    'partially paid',
    {
      amount_received: '4',
      amount_seen: '4',
      amount_due: '6.5',
      transactions: [tx('4', 'Confirmed', 12)],
    },
    { phase: 'partial', payable: true, headline: 'amountStillDue', headlineAmount: '6.5' },
  ],
  [
    'paid',
    {
      status: 'Paid',
      amount_received: '10.5',
      amount_seen: '10.5',
      amount_due: '0',
      transactions: [tx('10.5', 'Confirmed', 12)],
    },
    { phase: 'paid', payable: false, headline: 'amountTotal', showReceived: false },
  ],
  [
    'expired',
    { status: 'Expired', expires_at: EARLIER },
    { phase: 'expired', payable: false, headline: 'amountTotal' },
  ],
  [
    'pending past the deadline: expired before the job says so',
    { expires_at: EARLIER },
    { phase: 'expired', payable: false },
  ],
  [
    'pending past the deadline with a partial payment: underpaid',
    { expires_at: EARLIER, amount_received: '4', amount_seen: '4', amount_due: '6.5' },
    { phase: 'underpaid', payable: false },
  ],
  [
    'late payment seen after expiry: shows as received',
    {
      status: 'Expired',
      expires_at: EARLIER,
      amount_seen: '10.5',
      amount_due: '0',
      transactions: [tx('10.5', 'Pending', 2)],
    },
    { phase: 'confirming', payable: false, showReceived: true, confirmations: { n: 2, m: 12 } },
  ],
  [
    'underpaid',
    {
      status: 'Underpaid',
      expires_at: EARLIER,
      amount_received: '4',
      amount_seen: '4',
      amount_due: '6.5',
      transactions: [tx('4', 'Confirmed', 12)],
    },
    { phase: 'underpaid', payable: false, showReceived: true },
  ],
  [
    'reverted transfer does not count',
    { transactions: [tx('10.5', 'Reverted', 0)] },
    { phase: 'waiting', payable: true },
  ],
  [
    'least-confirmed pending transfer sets n',
    {
      amount_received: '5',
      amount_seen: '10.5',
      amount_due: '0',
      transactions: [tx('5', 'Confirmed', 12), tx('3', 'Pending', 9), tx('2.5', 'Pending', 3)],
    },
    { phase: 'confirming', confirmations: { n: 3, m: 12 } },
  ],
];

describe('pageStateOf', () => {
  it.each(CASES)('%s', (_name, changes, expected) => {
    const view = sessionView({ expires_at: LATER, ...changes });
    expect(pageStateOf(view, NOW)).toMatchObject(expected);
  });

  it.each(CASES)('page.js agrees: %s', (_name, changes) => {
    const view = sessionView({ expires_at: LATER, ...changes });
    expect(script.pageStateOf(view, NOW)).toEqual(pageStateOf(view, NOW));
  });

  it.each(CASES)('page.js writes the same status texts in every locale: %s', (_name, changes) => {
    const view = sessionView({ expires_at: LATER, merchant_name: 'Café <b>', ...changes });
    const state = pageStateOf(view, NOW);
    for (const locale of LOCALES) {
      expect(script.statusTexts(view, state, MESSAGES[locale], numberSymbols(locale))).toEqual(
        statusTexts(view, state, locale),
      );
    }
  });
});

describe('the helpers page.js repeats', () => {
  it.each([
    ['1', '1', 0],
    ['1.0', '1', 0],
    ['01.50', '1.5', 0],
    ['0', '0.000001', -1],
    ['10', '9.999999', 1],
    ['123456789012345678901234', '123456789012345678901233.9', 1],
    ['0.1', '0.09', 1],
  ])('compareDecimals(%s, %s) = %i', (a, b, expected) => {
    expect(compareDecimals(a, b)).toBe(expected);
    expect(compareDecimals(b, a)).toBe(-expected || 0);
    expect(script.compareDecimals(a, b)).toBe(expected);
  });

  it.each([
    [0, '0:00'],
    [-5000, '0:00'],
    [1, '0:01'],
    [59_001, '1:00'],
    [5 * 60_000, '5:00'],
    [14 * 60_000 + 5_000, '14:05'],
    [3_723_000, '1:02:03'],
  ])('formatRemaining(%i) = %s', (milliseconds, expected) => {
    expect(formatRemaining(milliseconds)).toBe(expected);
    expect(script.formatRemaining(milliseconds)).toBe(expected);
  });

  it('hashes the payment URI alike on both sides (FNV-1a)', () => {
    expect(qrVersion('')).toBe('811c9dc5');
    expect(qrVersion('a')).toBe('e40c292c');
    const uri =
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=1';
    expect(script.qrVersion(uri)).toBe(qrVersion(uri));
    expect(qrVersion(uri)).not.toBe(qrVersion(uri.replace(/1$/, '2')));
  });

  it('formats numbers alike on both sides', () => {
    for (const locale of LOCALES) {
      const symbols = numberSymbols(locale);
      for (const value of [
        '0',
        '1',
        '999',
        '1000',
        '12345.6789',
        '1234567890.000000000000000001',
      ]) {
        expect(script.formatWithSymbols(value, symbols)).toBe(formatWithSymbols(value, symbols));
      }
    }
    expect(() => script.formatWithSymbols('1e5', numberSymbols('en'))).toThrow(TypeError);
  });

  it('accepts only http(s) URLs for the redirect, like the server', () => {
    for (const url of [
      'https://shop.example/done?x=1',
      'http://shop.example',
      'javascript:alert(1)',
      'data:text/html,hi',
      'not a url',
      '',
    ]) {
      expect(script.safeHttpUrl(url)).toBe(safeHttpUrl(url));
    }
    expect(script.safeHttpUrl('javascript:alert(1)')).toBeNull();
  });

  it('is ES2019 and strict', () => {
    const source = readFileSync(join(HOSTED_PAGE_ASSETS_DIR, 'page.js'), 'utf8');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const acorn = require('acorn') as {
      parse: (code: string, options: { ecmaVersion: number; sourceType: string }) => unknown;
    };
    expect(() => acorn.parse(source, { ecmaVersion: 2019, sourceType: 'script' })).not.toThrow();
    expect(source).toMatch(/^'use strict';$/m);
    expect(source).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });
});
