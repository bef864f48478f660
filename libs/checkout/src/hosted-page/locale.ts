/** Languages the hosted page speaks; the first is the fallback. */
export const LOCALES = ['en', 'de', 'es', 'fr', 'pt'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

// A header longer than this is cut: no browser sends one, and parsing stays cheap.
const MAX_ACCEPT_LANGUAGE_LENGTH = 2_000;
const QUALITY = /^q=(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/i;
const PLAIN_DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** "pt-BR", "pt_br" and "PT" all name Portuguese; anything we do not speak is undefined. */
function supportedLanguageOf(tag: string): Locale | undefined {
  const language = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(language) ? language : undefined;
}

/**
 * `?locale=` first (a link or a language switcher chose it), then the browser's Accept-Language
 * by quality (ties keep header order, q=0 means "not this one"), then English.
 */
export function negotiateLocale(
  queryLocale: string | undefined,
  acceptLanguage: string | undefined,
): Locale {
  const chosen = typeof queryLocale === 'string' ? supportedLanguageOf(queryLocale) : undefined;
  if (chosen) return chosen;
  if (typeof acceptLanguage !== 'string') return DEFAULT_LOCALE;
  const ranges: Array<{ tag: string; quality: number; order: number }> = [];
  acceptLanguage
    .slice(0, MAX_ACCEPT_LANGUAGE_LENGTH)
    .split(',')
    .forEach((part, order) => {
      const [tag, ...parameters] = part.split(';').map((piece) => piece.trim());
      if (!tag) return;
      let quality = 1;
      for (const parameter of parameters) {
        const match = QUALITY.exec(parameter);
        if (match) quality = Number(match[1]);
        else if (/^q=/i.test(parameter)) quality = 0; // a malformed weight: ignore the range
      }
      if (quality > 0) ranges.push({ tag, quality, order });
    });
  ranges.sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const range of ranges) {
    if (range.tag === '*') return DEFAULT_LOCALE;
    const language = supportedLanguageOf(range.tag);
    if (language) return language;
  }
  return DEFAULT_LOCALE;
}

/** How a locale writes numbers; also handed to the page's script so both format alike. */
export interface NumberSymbols {
  group: string;
  decimal: string;
  /** 2 where 4-digit numbers are not grouped (Spanish writes 1234,5 but 12.345,6). */
  minimumGroupingDigits: number;
}

const symbolsCache = new Map<Locale, NumberSymbols>();

/** Read from Intl once per locale; no amount ever goes through Intl (or a JS number). */
export function numberSymbols(locale: Locale): NumberSymbols {
  let symbols = symbolsCache.get(locale);
  if (!symbols) {
    const format = new Intl.NumberFormat(locale);
    const parts = format.formatToParts(11111.1);
    const group = parts.find((part) => part.type === 'group')?.value ?? ',';
    const decimal = parts.find((part) => part.type === 'decimal')?.value ?? '.';
    const groupsFourDigits = format.formatToParts(1000.1).some((part) => part.type === 'group');
    symbols = { group, decimal, minimumGroupingDigits: groupsFourDigits ? 1 : 2 };
    symbolsCache.set(locale, symbols);
  }
  return symbols;
}

/**
 * A decimal string in a locale's notation, digit for digit: "1234567.000001" is "1.234.567,000001"
 * in German. Only the separators change; no digit is added or dropped (except padding with zeros
 * up to `minimumFractionDigits`).
 */
export function formatDecimal(
  value: string,
  locale: Locale,
  options: { minimumFractionDigits?: number } = {},
): string {
  return formatWithSymbols(value, numberSymbols(locale), options.minimumFractionDigits ?? 0);
}

/** The algorithm of formatDecimal, with the symbols given; page.js has the same function. */
export function formatWithSymbols(
  value: string,
  symbols: NumberSymbols,
  minimumFractionDigits = 0,
): string {
  if (typeof value !== 'string' || !PLAIN_DECIMAL.test(value)) {
    throw new TypeError(`Not a plain decimal: ${JSON.stringify(value)}.`);
  }
  const [integer, fraction = ''] = value.split('.');
  let grouped = integer;
  if (integer.length >= 4 + symbols.minimumGroupingDigits - 1) {
    grouped = '';
    for (let end = integer.length; end > 0; end -= 3) {
      const start = Math.max(0, end - 3);
      grouped = integer.slice(start, end) + (grouped ? symbols.group + grouped : '');
    }
  }
  const digits = fraction.padEnd(minimumFractionDigits, '0');
  return digits ? `${grouped}${symbols.decimal}${digits}` : grouped;
}

/** A fiat price as "12,50 EUR": the currency's usual fraction digits, the code after it. */
export function formatFiat(amount: string, currency: string, locale: Locale): string {
  let fractionDigits = 2;
  try {
    fractionDigits =
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
      }).resolvedOptions().minimumFractionDigits ?? 2;
  } catch {
    // Not an ISO 4217 code Intl knows: two digits, like most currencies.
  }
  return `${formatDecimal(amount, locale, { minimumFractionDigits: fractionDigits })} ${currency}`;
}
