import { join } from 'node:path';
import { HOSTED_PAGE_ASSETS_DIR } from './assets-dir';
import { LOCALES, Locale } from './locale';
import { MESSAGES, translate } from './messages';
import { PageState, pageStateOf } from './page-state';
import { PublicSessionView } from './public-session-view';
import { detectionNoticeText, renderCheckoutPage } from './render-page';
import { sessionView } from './testing/session-view.fixture';

/** page.js, loaded as CommonJS: outside a browser it only exports its pure functions. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const script = require(join(HOSTED_PAGE_ASSETS_DIR, 'page.js')) as {
  pageStateOf: typeof pageStateOf;
  detectionNotice: (view: PublicSessionView, state: PageState, messages: object) => string;
};

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const LATER = '2030-01-01T12:30:00.000Z';
const EARLIER = '2030-01-01T11:30:00.000Z';
const paid: Partial<PublicSessionView> = {
  status: 'Paid',
  amount_received: '10.5',
  amount_seen: '10.5',
  amount_due: '0',
  transactions: [{ tx_hash: '0xaa', amount: '10.5', status: 'Confirmed', confirmations: 12 }],
};

const CASES: Array<[string, Partial<PublicSessionView>, boolean]> = [
  ['operational: nothing to say', { detection: 'operational' }, false],
  ['delayed while waiting', { detection: 'delayed' }, true],
  ['down while waiting', { detection: 'down' }, true],
  [
    'delayed while confirming',
    {
      detection: 'delayed',
      amount_seen: '10.5',
      amount_due: '0',
      transactions: [{ tx_hash: '0xaa', amount: '10.5', status: 'Pending', confirmations: 3 }],
    },
    true,
  ],
  [
    'down after expiry (a payment may still be on its way)',
    { detection: 'down', status: 'Expired', expires_at: EARLIER },
    true,
  ],
  ['delayed once paid: nothing is left to wait for', { detection: 'delayed', ...paid }, false],
  ['a view from an older server without the field', { detection: undefined }, false],
];

function textOf(html: string, id: string): { text: string; hidden: boolean } {
  const match = new RegExp(`<([a-z]+) id="${id}"([^>]*)>([\\s\\S]*?)</\\1>`).exec(html);
  if (!match) throw new Error(`no element #${id}`);
  return { text: match[3].trim(), hidden: /\shidden(\s|$)/.test(match[2]) };
}

describe('the detection notice', () => {
  it.each(CASES)('%s', (_name, changes, shown) => {
    const view = sessionView({ expires_at: LATER, ...changes });
    const state = pageStateOf(view, NOW);
    expect(state.detectionNotice).toBe(shown);
    expect(script.pageStateOf(view, NOW)).toEqual(state);
    for (const locale of LOCALES) {
      const text = detectionNoticeText(view, state, locale);
      expect(script.detectionNotice(view, state, MESSAGES[locale])).toBe(text);
      expect(text === '').toBe(!shown);
    }
  });

  it.each(LOCALES)('%s: names the network and says the payment is safe', (locale: Locale) => {
    const view = sessionView({ expires_at: LATER, detection: 'down', network_name: 'Ethereum' });
    const html = renderCheckoutPage(view, { locale, assetBase: '/checkout/assets' });
    const notice = textOf(html, 'detection-notice');
    expect(notice.hidden).toBe(false);
    expect(notice.text).toContain('Ethereum');
    expect(notice.text).toBe(
      translate(locale, 'detectionDelayed', { network: 'Ethereum' })
        .replace(/&/g, '&amp;')
        .replace(/'/g, '&#39;'),
    );
  });

  it('lives in its own polite status region that is always in the page', () => {
    for (const detection of ['operational', 'delayed'] as const) {
      const html = renderCheckoutPage(sessionView({ expires_at: LATER, detection }), {
        locale: 'en',
        assetBase: '/checkout/assets',
      });
      expect(html).toMatch(
        /<div id="detection-live" class="detection-live" role="status" aria-live="polite" aria-atomic="true">\n<p id="detection-notice"/,
      );
      expect(textOf(html, 'detection-notice').hidden).toBe(detection === 'operational');
    }
  });

  it('the English text says what the issue asks for', () => {
    expect(translate('en', 'detectionDelayed', { network: 'TRON' })).toBe(
      'Payments on TRON are being detected with a delay. Your payment is safe: it will appear here as soon as it is detected.',
    );
  });
});
