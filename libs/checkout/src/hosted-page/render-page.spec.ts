import { HOSTED_PAGE_PATH } from '../checkout-session.mapper';
import { LOCALES, Locale } from './locale';
import { MESSAGES } from './messages';
import { PublicSessionView } from './public-session-view';
import {
  DEFAULT_BASE_PATH,
  escapeHtml,
  jsonForScript,
  renderCheckoutPage,
  renderNotFoundPage,
  safeHttpUrl,
  safeLogoUrl,
} from './render-page';
import { sessionView } from './testing/session-view.fixture';

const EARLIER = '2030-01-01T11:30:00.000Z';
const options = { locale: 'en' as Locale, assetBase: '/checkout/assets' };

function render(changes: Partial<PublicSessionView> = {}, locale: Locale = 'en'): string {
  return renderCheckoutPage(sessionView(changes), { ...options, locale });
}

/** The text of the element with this id (its first text, tags removed). */
function textOf(html: string, id: string): string {
  const match = new RegExp(`<([a-z0-9]+) id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  if (!match) throw new Error(`no element #${id}`);
  return match[2].replace(/<[^>]+>/g, '').trim();
}

function isHidden(html: string, id: string): boolean {
  const match = new RegExp(`<[a-z0-9]+ id="${id}"[^>]*>`).exec(html);
  if (!match) throw new Error(`no element #${id}`);
  return /\shidden(\s|>|=)/.test(match[0]);
}

function jsonBlock(html: string, id: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(
    html,
  );
  if (!match) throw new Error(`no JSON block #${id}`);
  return JSON.parse(match[1]);
}

/** What the page's CSP would block, or what would let merchant input run. */
function expectCspClean(html: string): void {
  // Scripts: only external ones and JSON data blocks.
  const scripts = html.match(/<script\b[^>]*>/gi) ?? [];
  for (const tag of scripts) {
    expect(tag).toMatch(/^<script (src="[^"]+" defer|type="application\/json" id="[a-z-]+")>$/);
  }
  expect(html).not.toMatch(/<script src="[^"]*"[^>]*>[^<]+<\/script>/);
  expect(html).not.toMatch(/<style/i);
  // Every "<" of text is escaped, so each "<...>" is a real tag: look at its attribute names,
  // with the quoted values (which cannot hold a '"') blanked out.
  for (const tag of html.match(/<[a-z][^>]*>/gi) ?? []) {
    const names = tag.replace(/"[^"]*"/g, '""');
    expect(names).not.toMatch(/\sstyle\s*=/i);
    expect(names).not.toMatch(/\son[a-z]+\s*=/i);
  }
  expect(html).not.toMatch(/javascript:/i);
  expect(html).not.toMatch(/<(iframe|object|embed|base|form|svg)\b/i);
  // Nothing loads from another origin except the merchant's logo.
  const sources = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  for (const source of sources) {
    expect(source).toMatch(
      /^(\/|https:\/\/acme\.example\/|https:\/\/cdn\.acme\.example\/|data:,$)/,
    );
  }
}

describe('renderCheckoutPage', () => {
  it('is a complete document: lang, viewport, own style and script, both JSON blocks', () => {
    const html = render({}, 'de');
    expect(html).toMatch(/^<!doctype html>\n<html lang="de" dir="ltr">/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<link rel="stylesheet" href="/checkout/assets/page.css">');
    expect(html).toContain('<script src="/checkout/assets/page.js" defer></script>');
    expect(jsonBlock(html, 'session-state')).toEqual(sessionView());
    expect(jsonBlock(html, 'page-config')).toMatchObject({
      locale: 'de',
      messages: MESSAGES.de,
      symbols: { group: '.', decimal: ',' },
      urls: {
        state: '/checkout/cs_4f8Qh2kT9xLmN3pR7sVw1Z/state',
        stream: '/checkout/cs_4f8Qh2kT9xLmN3pR7sVw1Z/stream',
        qr: '/checkout/cs_4f8Qh2kT9xLmN3pR7sVw1Z/qr.svg',
      },
      redirectDelaySeconds: 5,
      pollIntervalMs: 3000,
      urgentSeconds: 300,
    });
    expectCspClean(html);
  });

  it.each(LOCALES)('%s: CSP-clean and in its own language', (locale) => {
    const html = render({}, locale);
    expect(html).toContain(`<html lang="${locale}"`);
    expect(textOf(html, 'status-text')).toBe(escapeHtml(MESSAGES[locale].statusWaiting));
    expectCspClean(html);
  });

  it('versions the assets when asked', () => {
    const html = renderCheckoutPage(sessionView(), { ...options, assetVersion: 'abc 1' });
    expect(html).toContain('href="/checkout/assets/page.css?v=abc%201"');
    expect(html).toContain('src="/checkout/assets/page.js?v=abc%201"');
  });

  it('has the essentials in the HTML: token amount, token, network, warning, address, QR', () => {
    const html = render({ amount: '1234.567891', amount_due: '1234.567891' }, 'de');
    expect(textOf(html, 'amount-label')).toBe('Zu sendender Betrag');
    expect(textOf(html, 'amount-value')).toBe('1.234,567891');
    expect(html).toContain('USDT im Netzwerk Ethereum');
    expect(html).toContain('Senden Sie nur USDT im Netzwerk Ethereum an diese Adresse.');
    expect(textOf(html, 'address')).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    expect(textOf(html, 'pay-amount')).toBe('1.234,567891');
    expect(html).toMatch(
      /<img id="qr" class="qr" src="\/checkout\/cs_4f8Qh2kT9xLmN3pR7sVw1Z\/qr\.svg\?v=[0-9a-f]{8}" width="240" height="240" alt="QR-Code, um 1\.234,567891 USDT an diese Adresse im Netzwerk Ethereum zu zahlen">/,
    );
    // The fiat price is only a detail, in the customer's notation.
    expect(html).toContain('<p class="fiat">Preis: 9,75 EUR</p>');
    expect(isHidden(html, 'pay')).toBe(false);
    // Copy buttons are <button>s that the script reveals: without it they could not work.
    expect(html).toContain('<button type="button" class="copy" data-copy="address" hidden>');
    expect(html).toContain('<button type="button" class="copy" data-copy="amount" hidden>');
    expect(html).toMatch(/<div id="status-live" role="status" aria-live="polite"/);
  });

  it('changes the QR image URL with the payment URI', () => {
    const qrSource = (html: string) => /id="qr" class="qr" src="([^"]+)"/.exec(html)?.[1];
    const due = sessionView().payment_uri.replace('10500000', '6500000');
    expect(qrSource(render())).toMatch(/\?v=[0-9a-f]{8}$/);
    expect(qrSource(render({ payment_uri: due }))).not.toBe(qrSource(render()));
  });

  it('TRON: the QR is the address alone and says so', () => {
    const html = render({
      network: 'TRON',
      network_name: 'TRON',
      chain_family: 'TRON',
      chain_id: 728126428,
      pay_address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      payment_uri: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
    });
    expect(html).toContain('alt="QR code of this address on TRON"');
    expect(html).toContain('Send only USDT on the TRON network to this address.');
  });

  describe('state per status', () => {
    it('waiting: countdown quiet while far from the end', () => {
      const html = render();
      expect(textOf(html, 'status-text')).toBe('Waiting for your payment.');
      expect(html).toContain('<main id="checkout" class="checkout" data-phase="waiting">');
      expect(html).toContain('<p id="countdown" class="countdown">Expires in 30:00</p>');
      expect(isHidden(html, 'paid')).toBe(true);
      expect(isHidden(html, 'received')).toBe(true);
      expect(isHidden(html, 'transactions')).toBe(true);
      expect(isHidden(html, 'cancel')).toBe(false);
    });

    it('waiting near the end: countdown prominent', () => {
      const html = render({ expires_at: '2030-01-01T12:04:10.000Z' });
      expect(html).toContain(
        '<p id="countdown" class="countdown is-urgent">Only 4:10 left to pay</p>',
      );
    });

    it('seen, confirming: n of m', () => {
      const html = render({
        amount_seen: '10.5',
        amount_due: '0',
        transactions: [{ tx_hash: '0xabc', amount: '10.5', status: 'Pending', confirmations: 3 }],
      });
      expect(textOf(html, 'status-text')).toBe('Payment seen. Waiting for confirmations.');
      expect(textOf(html, 'status-detail')).toBe('3 of 12 confirmations');
      expect(html).toContain('max="12" value="3"');
      expect(isHidden(html, 'pay')).toBe(true);
      expect(isHidden(html, 'transactions')).toBe(false);
      expect(html).toContain('<span class="tx-status">Confirming: 3 of 12</span>');
      expect(html).toContain('<code class="tx-hash" title="Transaction">0xabc</code>');
    });

    it('partially paid: the amount still due heads the page, the QR asks for it', () => {
      const html = render(
        {
          amount: '1500',
          amount_received: '500',
          amount_seen: '500',
          amount_due: '1000',
          transactions: [
            { tx_hash: '0xabc', amount: '500', status: 'Confirmed', confirmations: 12 },
          ],
        },
        'fr',
      );
      expect(textOf(html, 'amount-label')).toBe('Montant restant à envoyer');
      expect(textOf(html, 'amount-value')).toBe('1\u202f000');
      expect(textOf(html, 'status-text')).toBe(
        'Paiement partiel reçu. Veuillez envoyer les 1\u202f000 USDT restants.',
      );
      expect(textOf(html, 'received')).toBe('Reçu jusqu’ici\u00a0: 500 USDT sur 1\u202f500 USDT');
      expect(textOf(html, 'pay-amount')).toBe('1\u202f000');
      expect(html).toContain('alt="Code QR pour payer 1\u202f000 USDT');
      expect(isHidden(html, 'pay')).toBe(false);
    });

    it('paid with success_url: continue link, no pay panel, no cancel', () => {
      const html = render({
        status: 'Paid',
        amount_received: '10.5',
        amount_seen: '10.5',
        amount_due: '0',
      });
      expect(textOf(html, 'status-text')).toBe('Payment received. Thank you!');
      expect(isHidden(html, 'paid')).toBe(false);
      expect(html).toContain(
        '<a id="continue" class="button" href="https://acme.example/thanks?order=42">Continue now</a>',
      );
      expect(html).toContain('<p id="redirect-notice" class="redirect-notice" hidden></p>');
      expect(isHidden(html, 'pay')).toBe(true);
      expect(isHidden(html, 'cancel')).toBe(true);
      expect(textOf(html, 'amount-label')).toBe('Amount');
    });

    it('paid without success_url: a thank-you', () => {
      const html = render({
        status: 'Paid',
        amount_received: '10.5',
        amount_seen: '10.5',
        amount_due: '0',
        success_url: null,
      });
      expect(textOf(html, 'thank-you')).toBe('You can close this page now.');
      expect(html).not.toContain('id="continue"');
    });

    it('expired: says not to pay, hides the pay panel', () => {
      const html = render({ status: 'Expired', expires_at: EARLIER });
      expect(html).toContain('data-phase="expired"');
      expect(textOf(html, 'status-text')).toBe(
        'This payment request has expired. Do not send a payment to this address.',
      );
      expect(textOf(html, 'status-hint')).toBe(
        'If you have already sent a payment, it will appear here once it arrives.',
      );
      expect(isHidden(html, 'pay')).toBe(true);
      expect(isHidden(html, 'countdown')).toBe(true);
      expect(isHidden(html, 'cancel')).toBe(false);
    });

    it('a late payment after expiry shows as received', () => {
      const html = render({
        status: 'Expired',
        expires_at: EARLIER,
        amount_seen: '10.5',
        amount_due: '0',
        transactions: [{ tx_hash: '0xabc', amount: '10.5', status: 'Pending', confirmations: 1 }],
      });
      expect(html).toContain('data-phase="confirming"');
      expect(textOf(html, 'status-text')).toBe('Payment seen. Waiting for confirmations.');
      expect(textOf(html, 'received')).toBe('Received so far: 10.5 USDT of 10.5 USDT');
    });

    it('underpaid: what arrived, and whom to ask', () => {
      const html = render({
        status: 'Underpaid',
        expires_at: EARLIER,
        amount_received: '4',
        amount_seen: '4',
        amount_due: '6.5',
      });
      expect(textOf(html, 'status-text')).toBe(
        'The time to pay ran out after a partial payment of 4 USDT of 10.5 USDT.',
      );
      expect(textOf(html, 'status-hint')).toBe('Please contact Acme Coffee about the rest.');
      expect(isHidden(html, 'pay')).toBe(true);
    });
  });

  describe('merchant input', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '"><img src=x onerror=alert(1)>',
      "'><svg onload=alert(1)>",
      '</script><script>alert(1)</script>',
      '<!--',
      '&lt;b&gt; $& $1',
    ];

    it.each(hostile)('escapes the merchant name %p everywhere', (name) => {
      const html = render({ merchant_name: name });
      expectCspClean(html);
      expect(textOf(html, 'merchant-name')).toBe(escapeHtml(name));
      expect(html).toContain(`<title>Payment to ${escapeHtml(name)}</title>`);
      expect(html).toContain(`alt="${escapeHtml(name)} logo"`);
      expect(html).toContain(`Cancel and return to ${escapeHtml(name)}</a>`);
      // The raw name appears nowhere outside the JSON block, which escapes "<".
      const withoutJson = html.replace(
        /<script type="application\/json"[^>]*>[^<]*<\/script>/g,
        '',
      );
      if (/[<>"']/.test(name)) expect(withoutJson).not.toContain(name);
      expect((jsonBlock(html, 'session-state') as PublicSessionView).merchant_name).toBe(name);
    });

    it('never lets the JSON block be closed or commented from inside', () => {
      const html = render({ merchant_name: '</script><!-- <script>' });
      const block = /<script type="application\/json" id="session-state">([\s\S]*?)<\/script>/.exec(
        html,
      )![1];
      expect(block).not.toMatch(/[<>]/);
      expect(block).toContain('\\u003c/script\\u003e');
    });

    it('links only to http(s) success and cancel URLs', () => {
      const html = render({
        status: 'Paid',
        amount_received: '10.5',
        amount_seen: '10.5',
        amount_due: '0',
        success_url: 'javascript:alert(1)',
        cancel_url: 'data:text/html,<script>alert(1)</script>',
      });
      expect(html).not.toContain('id="continue"');
      expect(html).not.toContain('id="cancel"');
      expect(
        html.replace(/<script type="application\/json"[^>]*>[^<]*<\/script>/g, ''),
      ).not.toMatch(/javascript:|data:text/);
    });

    it('escapes quotes in URLs', () => {
      const html = render({ cancel_url: 'https://acme.example/cart?a="><script>' });
      expect(html).toContain('href="https://acme.example/cart?a=%22%3E%3Cscript%3E"');
      expectCspClean(html);
    });

    it('shows a logo only from https or a data image, never from http', () => {
      expect(render({ merchant_logo_url: null })).not.toContain('merchant-logo');
      expect(render({ merchant_logo_url: 'http://acme.example/l.png' })).not.toContain(
        'merchant-logo',
      );
      expect(render({ merchant_logo_url: 'javascript:alert(1)' })).not.toContain('merchant-logo');
      expect(render()).toContain(
        '<img class="merchant-logo" src="https://cdn.acme.example/logo.png" alt="Acme Coffee logo" width="48" height="48" referrerpolicy="no-referrer">',
      );
    });

    it('escapes a hostile session id in URLs', () => {
      const html = render({ id: 'cs_"><x' });
      expect(html).toContain('src="/checkout/cs_%22%3E%3Cx/qr.svg?v=');
    });
  });

  it('carries the refund form, hidden and naming no refund, only while a refund waits', () => {
    expect(render()).not.toContain('id="refund"');
    const html = render({ refund_waiting: true });
    expect(isHidden(html, 'refund')).toBe(true);
    expect(html).toContain(`data-refunds="/checkout/${sessionView().id}/refunds" hidden>`);
    // Which refund, and how much, only the link's secret tells the script.
    expect(textOf(html, 'refund-text')).toBe('');
    expect(html).not.toMatch(/re_[0-9A-Za-z]{22}/);
    expect(html).toContain('<form id="refund-form" class="refund-form" novalidate>');
  });

  it('stays small: HTML well under budget', () => {
    const html = render({
      transactions: Array.from({ length: 5 }, (_, index) => ({
        tx_hash: `0x${String(index).repeat(64)}`,
        amount: '1',
        status: 'Confirmed' as const,
        confirmations: 12,
      })),
    });
    expect(Buffer.byteLength(html)).toBeLessThan(20_000);
  });

  it('uses HOSTED_PAGE_PATH when no base path is given', () => {
    expect(DEFAULT_BASE_PATH).toBe(HOSTED_PAGE_PATH);
    expect(render()).toContain(`src="${HOSTED_PAGE_PATH}/cs_4f8Qh2kT9xLmN3pR7sVw1Z/qr.svg?v=`);
    const other = renderCheckoutPage(sessionView(), { ...options, basePath: '/pay/' });
    expect(other).toContain('src="/pay/cs_4f8Qh2kT9xLmN3pR7sVw1Z/qr.svg?v=');
  });
});

describe('renderNotFoundPage', () => {
  it.each(LOCALES)('%s: a friendly, CSP-clean 404', (locale) => {
    const html = renderNotFoundPage(locale);
    expect(html).toContain(`<html lang="${locale}"`);
    expect(html).toContain(escapeHtml(MESSAGES[locale].notFoundText));
    expect(html).toContain('<link rel="stylesheet" href="/checkout/assets/page.css">');
    expect(html).not.toMatch(/<script|\sstyle=|<style|\son[a-z]+=/i);
  });

  it('says the link does not exist or was removed', () => {
    expect(renderNotFoundPage('en')).toContain(
      'This payment link does not exist or has been removed.',
    );
  });
});

describe('helpers', () => {
  it('escapeHtml escapes the five characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('jsonForScript round-trips through JSON.parse', () => {
    const value = { a: '</script><!--&\u2028\u2029', b: [1, null] };
    expect(JSON.parse(jsonForScript(value))).toEqual(value);
    expect(jsonForScript(value)).not.toMatch(/[<>&\u2028\u2029]/);
  });

  it.each([
    ['https://acme.example/ok', 'https://acme.example/ok'],
    ['http://acme.example', 'http://acme.example/'],
    ['javascript:alert(1)', null],
    ['JAVASCRIPT:alert(1)', null],
    [' javascript:alert(1)', null],
    ['data:text/html,x', null],
    ['//acme.example', null],
    ['/relative', null],
    ['', null],
    [null, null],
  ])('safeHttpUrl(%p) = %p', (value, expected) => {
    expect(safeHttpUrl(value)).toBe(expected);
  });

  it.each([
    ['https://cdn.example/l.png', 'https://cdn.example/l.png'],
    ['http://cdn.example/l.png', null],
    ['data:image/png;base64,AAAA', 'data:image/png;base64,AAAA'],
    ['data:text/html,<b>', null],
  ])('safeLogoUrl(%p) = %p', (value, expected) => {
    expect(safeLogoUrl(value)).toBe(expected);
  });

  it('leaves out an inline logo too large to send with every page view', () => {
    expect(safeLogoUrl(`data:image/png;base64,${'A'.repeat(20_000)}`)).toBeNull();
  });
});
