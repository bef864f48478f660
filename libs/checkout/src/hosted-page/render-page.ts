import { formatDecimal, formatFiat, Locale, numberSymbols } from './locale';
import { MESSAGES, MessageKey, MessageParams, translate } from './messages';
import { formatRemaining, PageState, pageStateOf, qrVersion, URGENT_SECONDS } from './page-state';
import { PublicSessionView } from './public-session-view';

/** HOSTED_PAGE_PATH of checkout-session.mapper (a spec checks they agree). */
export const DEFAULT_BASE_PATH = '/checkout';

export interface RenderCheckoutPageOptions {
  locale: Locale;
  /** Where page.css and page.js are served, e.g. '/checkout/assets'. */
  assetBase: string;
  /**
   * The hosted page's path prefix, HOSTED_PAGE_PATH ('/checkout' when left out). The page's
   * script and QR image use `<basePath>/<id>/qr.svg`, `/stream` and `/state`.
   */
  basePath?: string;
  /** Appended as `?v=` to the asset URLs, e.g. a hash of their content, so they can be cached long. */
  assetVersion?: string;
}

/** Seconds between "paid" and the redirect to success_url. */
export const REDIRECT_DELAY_SECONDS = 5;
/** Polling interval once the event stream has failed. */
export const POLL_INTERVAL_MS = 3_000;
/** The QR image's rendered size in CSS pixels. */
const QR_SIZE = 240;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (character) => ENTITIES[character]);
}

/**
 * JSON for a `<script type="application/json">` block: `<` (and `>`, `&`) escaped so no string
 * can close the element or open a comment; JSON.parse reads the escapes back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An http(s) URL, normalised, or null: nothing else may become a link or a redirect. */
export function safeHttpUrl(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

// An inline logo larger than this is left out: it would travel inside every page view.
const MAX_DATA_LOGO_LENGTH = 16_000;

/**
 * A logo the page's CSP lets load (img-src https: data:): https, or a small inline image (an SVG
 * in an <img> runs no script).
 */
export function safeLogoUrl(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i.test(value)) {
    return value.length <= MAX_DATA_LOGO_LENGTH ? value : null;
  }
  const url = safeHttpUrl(value);
  return url && url.startsWith('https:') ? url : null;
}

function attribute(name: string, on: boolean): string {
  return on ? ` ${name}` : '';
}

function assetUrl(options: RenderCheckoutPageOptions, file: string): string {
  const version = options.assetVersion ? `?v=${encodeURIComponent(options.assetVersion)}` : '';
  return `${options.assetBase.replace(/\/+$/, '')}/${file}${version}`;
}

/** The endpoints the page's script talks to. */
export function sessionUrls(basePath: string, sessionId: string) {
  const base = `${basePath.replace(/\/+$/, '')}/${encodeURIComponent(sessionId)}`;
  return { state: `${base}/state`, stream: `${base}/stream`, qr: `${base}/qr.svg` };
}

/** The QR image's URL for the view's payment URI; the version changes when the URI does. */
export function qrImageUrl(basePath: string, view: PublicSessionView): string {
  return `${sessionUrls(basePath, view.id).qr}?v=${qrVersion(view.payment_uri)}`;
}

interface Context {
  view: PublicSessionView;
  locale: Locale;
  state: PageState;
  t: (key: MessageKey, params?: MessageParams) => string;
  token: (amount: string) => string;
}

/**
 * The hosted checkout page for a session, complete in the HTML (amount, token, network, address,
 * QR, state), so it works before and without its script. Under the page's CSP: no inline script or
 * style, no event handler attributes; the state and messages ride in JSON data blocks.
 */
export function renderCheckoutPage(
  view: PublicSessionView,
  options: RenderCheckoutPageOptions,
): string {
  const { locale } = options;
  const state = pageStateOf(view, Date.parse(view.server_time));
  const context: Context = {
    view,
    locale,
    state,
    t: (key, params) => escapeHtml(translate(locale, key, params)),
    token: (amount) => `${formatDecimal(amount, locale)} ${view.currency}`,
  };
  const { t } = context;
  const basePath = options.basePath ?? DEFAULT_BASE_PATH;
  const urls = sessionUrls(basePath, view.id);
  const config = {
    locale,
    symbols: numberSymbols(locale),
    messages: MESSAGES[locale],
    urls,
    redirectDelaySeconds: REDIRECT_DELAY_SECONDS,
    pollIntervalMs: POLL_INTERVAL_MS,
    urgentSeconds: URGENT_SECONDS,
  };
  return `<!doctype html>
<html lang="${locale}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${t('pageTitle', { merchant: view.merchant_name })}</title>
<link rel="stylesheet" href="${escapeHtml(assetUrl(options, 'page.css'))}">
<script src="${escapeHtml(assetUrl(options, 'page.js'))}" defer></script>
</head>
<body>
<main id="checkout" class="checkout" data-phase="${state.phase}">
${renderMerchant(context)}
${renderSummary(context)}
${renderDetection(context)}
${renderStatus(context)}
${renderRefund(context, basePath)}
${renderPaid(context)}
${renderPay(context, basePath)}
${renderTransactions(context)}
${renderFooter(context)}
<noscript><p class="noscript">${t('noscript')}</p></noscript>
</main>
<script type="application/json" id="session-state">${jsonForScript(view)}</script>
<script type="application/json" id="page-config">${jsonForScript(config)}</script>
</body>
</html>
`;
}

function renderMerchant({ view, t }: Context): string {
  const logo = safeLogoUrl(view.merchant_logo_url);
  const image = logo
    ? `<img class="merchant-logo" src="${escapeHtml(logo)}" alt="${t('logoAlt', { merchant: view.merchant_name })}" width="48" height="48" referrerpolicy="no-referrer">\n`
    : '';
  return `<header class="merchant">
${image}<h1 class="merchant-name"><span class="eyebrow">${t('paymentTo')}</span> <span id="merchant-name">${escapeHtml(view.merchant_name)}</span></h1>
</header>`;
}

function renderSummary({ view, locale, state, t, token }: Context): string {
  return `<section class="summary" aria-labelledby="amount-label">
<h2 id="amount-label" class="label">${t(state.headline)}</h2>
<p class="amount"><span id="amount-value" class="amount-value">${escapeHtml(formatDecimal(state.headlineAmount, locale))}</span> <span class="amount-currency">${escapeHtml(view.currency)}</span></p>
<p class="token-network">${t('tokenOnNetwork', { currency: view.currency, network: view.network_name })}</p>
<p id="received" class="received"${attribute('hidden', !state.showReceived)}>${t('receivedOf', { received: token(view.amount_seen), amount: token(view.amount) })}</p>
<p class="fiat">${t('priceDetail', { price: formatFiat(view.pricing.amount, view.pricing.currency, locale) })}</p>
</section>`;
}

/** The texts of the status box: the announced line, and a hint under it. */
export function statusTexts(
  view: PublicSessionView,
  state: PageState,
  locale: Locale,
): { text: string; hint: string; detail: string } {
  const token = (amount: string) => `${formatDecimal(amount, locale)} ${view.currency}`;
  const t = (key: MessageKey, params?: MessageParams) => translate(locale, key, params);
  const detail = state.confirmations ? t('confirmations', state.confirmations) : '';
  switch (state.phase) {
    case 'waiting':
      return { text: t('statusWaiting'), hint: '', detail };
    case 'confirming':
      return { text: t('statusConfirming'), hint: '', detail };
    case 'partial':
      return { text: t('statusPartial', { amount: token(view.amount_due) }), hint: '', detail };
    case 'paid':
      return { text: t('statusPaid'), hint: '', detail };
    case 'expired':
      return { text: t('statusExpired'), hint: t('expiredHint'), detail };
    case 'underpaid':
      return {
        text: t('statusUnderpaid', {
          received: token(view.amount_received),
          amount: token(view.amount),
        }),
        hint: t('underpaidHint', { merchant: view.merchant_name }),
        detail,
      };
  }
}

/** The calm notice shown while detection on the network is delayed or down, or ''. */
export function detectionNoticeText(
  view: PublicSessionView,
  state: PageState,
  locale: Locale,
): string {
  return state.detectionNotice
    ? translate(locale, 'detectionDelayed', { network: view.network_name })
    : '';
}

/**
 * Its own polite live region, always in the page (a region added or unhidden later is not
 * reliably announced); only the notice inside it shows and hides.
 */
function renderDetection({ view, locale, state }: Context): string {
  const text = detectionNoticeText(view, state, locale);
  return `<div id="detection-live" class="detection-live" role="status" aria-live="polite" aria-atomic="true">
<p id="detection-notice" class="detection-notice"${attribute('hidden', !text)}>${escapeHtml(text)}</p>
</div>`;
}

function renderStatus({ view, locale, state, t }: Context): string {
  const texts = statusTexts(view, state, locale);
  const progress = state.confirmations;
  // Quiet (small, muted) until the last minutes, then prominent; only while payment is open.
  const remainingMs = Date.parse(view.expires_at) - Date.parse(view.server_time);
  const urgent = remainingMs <= URGENT_SECONDS * 1000;
  const countdown = t(urgent ? 'expiresSoon' : 'expiresIn', { time: formatRemaining(remainingMs) });
  return `<section id="status" class="status" data-phase="${state.phase}">
<div id="status-live" role="status" aria-live="polite" aria-atomic="true">
<p id="status-text" class="status-text">${escapeHtml(texts.text)}</p>
<p id="status-hint" class="status-hint"${attribute('hidden', !texts.hint)}>${escapeHtml(texts.hint)}</p>
</div>
<p id="status-detail" class="status-detail"${attribute('hidden', !texts.detail)}>${escapeHtml(texts.detail)}</p>
<progress id="status-progress" class="status-progress" max="${progress?.m ?? 1}" value="${progress?.n ?? 0}" aria-labelledby="status-detail"${attribute('hidden', !progress)}></progress>
<p id="countdown" class="countdown${urgent ? ' is-urgent' : ''}"${attribute('hidden', !state.payable)}>${countdown}</p>
<p id="connection" class="connection" hidden></p>
</section>`;
}

/** Where the page's script finds a refund's form endpoints: `<this>/<refund id>/access|destination`. */
export function refundsBaseUrl(basePath: string, sessionId: string): string {
  return `${basePath.replace(/\/+$/, '')}/${encodeURIComponent(sessionId)}/refunds`;
}

/**
 * The refund form, on the page of a session with a refund waiting for the customer's address,
 * for whichever refund the page's link names: the page itself names none (a session can have
 * several refunds waiting, each with its own link). Hidden, without amounts: the script reads the
 * refund's id and secret from the URL fragment (which the server never sees), asks
 * `<refunds>/<id>/access` with the secret, and only then fills in that refund's amounts and shows
 * the form. It posts the address as JSON (the CSP allows no form submission) and hides the form
 * again at the refund's deadline. Without a script it cannot be sent.
 */
function renderRefund({ view, t }: Context, basePath: string): string {
  if (!view.refund_waiting) return '';
  const names = { currency: view.currency, network: view.network_name };
  return `<section id="refund" class="refund" aria-labelledby="refund-heading" data-refunds="${escapeHtml(refundsBaseUrl(basePath, view.id))}" hidden>
<h2 id="refund-heading">${t('refundHeading')}</h2>
<p id="refund-text"></p>
<p id="refund-delay" class="refund-delay" hidden></p>
<form id="refund-form" class="refund-form" novalidate>
<label for="refund-address" class="field-label">${t('refundAddressLabel', names)}</label>
<input id="refund-address" class="refund-address" name="to_address" type="text" required autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="100" aria-describedby="refund-warning">
<p id="refund-warning" class="warning">${t('refundWarning', names)}</p>
<button type="submit" class="button">${t('refundSubmit')}</button>
</form>
<p id="refund-result" class="refund-result" role="status" aria-live="polite"></p>
</section>`;
}

function renderPaid({ view, state, t }: Context): string {
  const successUrl = safeHttpUrl(view.success_url);
  const next = successUrl
    ? `<p id="redirect-notice" class="redirect-notice" hidden></p>
<p><a id="continue" class="button" href="${escapeHtml(successUrl)}">${t('continueNow')}</a></p>`
    : `<p id="thank-you" class="thank-you">${t('thankYou')}</p>`;
  return `<section id="paid" class="paid"${attribute('hidden', state.phase !== 'paid')}>
${next}
</section>`;
}

function renderPay({ view, locale, state, t }: Context, basePath: string): string {
  const dueAmount = state.headline === 'amountStillDue' ? view.amount_due : view.amount;
  const dueText = `${formatDecimal(dueAmount, locale)} ${view.currency}`;
  const qrAlt =
    view.chain_family === 'EVM'
      ? t('qrAltPayment', { amount: dueText, network: view.network_name })
      : t('qrAltAddress', { network: view.network_name });
  return `<section id="pay" class="pay" aria-labelledby="pay-instructions"${attribute('hidden', !state.payable)}>
<img id="qr" class="qr" src="${escapeHtml(qrImageUrl(basePath, view))}" width="${QR_SIZE}" height="${QR_SIZE}" alt="${qrAlt}">
<p id="pay-instructions" class="instructions">${t('instructions')}</p>
<p class="warning">${t('warning', { currency: view.currency, network: view.network_name })}</p>
<div class="field">
<span class="field-label" id="address-label">${t('addressLabel')}</span>
<code id="address" class="field-value address" aria-labelledby="address-label">${escapeHtml(view.pay_address)}</code>
<button type="button" class="copy" data-copy="address" hidden>${t('copyAddress')}</button>
</div>
<div class="field">
<span class="field-label" id="pay-amount-label">${t('amountLabel')}</span>
<span class="field-value"><span id="pay-amount" aria-labelledby="pay-amount-label">${escapeHtml(formatDecimal(dueAmount, locale))}</span> <span class="pay-currency">${escapeHtml(view.currency)}</span></span>
<button type="button" class="copy" data-copy="amount" hidden>${t('copyAmount')}</button>
</div>
<p id="copy-status" class="visually-hidden" aria-live="polite"></p>
</section>`;
}

function transactionStatus(
  transaction: PublicSessionView['transactions'][number],
  required: number,
  locale: Locale,
): string {
  if (transaction.status === 'Confirmed') return translate(locale, 'txConfirmed');
  if (transaction.status === 'Reverted') return translate(locale, 'txReverted');
  return translate(locale, 'txPending', {
    n: Math.min(transaction.confirmations, required),
    m: required,
  });
}

function renderTransactions({ view, locale, t, token }: Context): string {
  const items = view.transactions
    .map(
      (transaction) => `<li class="tx" data-status="${escapeHtml(transaction.status)}">
<span class="tx-amount">${escapeHtml(token(transaction.amount))}</span>
<span class="tx-status">${escapeHtml(transactionStatus(transaction, view.confirmations_required, locale))}</span>
<code class="tx-hash" title="${t('transaction')}">${escapeHtml(transaction.tx_hash)}</code>
</li>`,
    )
    .join('\n');
  return `<section id="transactions" class="transactions" aria-labelledby="transactions-heading"${attribute('hidden', !view.transactions.length)}>
<h2 id="transactions-heading">${t('transactions')}</h2>
<ul id="transaction-list">
${items}
</ul>
</section>`;
}

function renderFooter({ view, state, t }: Context): string {
  const cancelUrl = safeHttpUrl(view.cancel_url);
  const link = cancelUrl
    ? `<a id="cancel" class="cancel" href="${escapeHtml(cancelUrl)}"${attribute('hidden', state.phase === 'paid')}>${t('cancel', { merchant: view.merchant_name })}</a>`
    : '';
  return `<footer class="footer">${link}</footer>`;
}

/** The friendly 404 for an unknown or removed session id. */
export function renderNotFoundPage(
  locale: Locale,
  options: { assetBase?: string; assetVersion?: string } = {},
): string {
  const t = (key: MessageKey) => escapeHtml(translate(locale, key));
  const version = options.assetVersion ? `?v=${encodeURIComponent(options.assetVersion)}` : '';
  const assetBase = options.assetBase ?? `${DEFAULT_BASE_PATH}/assets`;
  const css = `${assetBase.replace(/\/+$/, '')}/page.css${version}`;
  return `<!doctype html>
<html lang="${locale}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${t('notFoundTitle')}</title>
<link rel="stylesheet" href="${escapeHtml(css)}">
</head>
<body>
<main class="checkout not-found">
<h1>${t('notFoundTitle')}</h1>
<p>${t('notFoundText')}</p>
<p class="status-hint">${t('notFoundHint')}</p>
</main>
</body>
</html>
`;
}
