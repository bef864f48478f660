import Decimal from 'decimal.js';
import { parseIsoDateTime } from '@app/common';

/**
 * The JSON both rate sources publish (FX_RATES_FILE and FX_RATES_URL), documented in
 * docs/configuration-checks.md:
 *
 *   { "as_of": "2026-05-01T12:00:00Z", "usd_per_unit": { "EUR": "1.0812", "JPY": "0.0067" } }
 *
 * `usd_per_unit` names the direction (USD for one unit of the currency), so a table of the usual
 * "units per USD" cannot be taken for it; rates are decimal strings, never JSON numbers (money is
 * never a binary float here). `as_of` is when the publisher vouches the rates were current, with
 * an explicit time zone. A sandbox file may still be the older flat form `{"EUR": "1.08"}`.
 */
export interface RatesDocument {
  /** Null only for an undated sandbox table. */
  asOf: Date | null;
  /** USD per one unit, by currency code; pegged codes left out. */
  usdPerUnit: Map<string, Decimal>;
}

/** USD and the USD stablecoins: 1 by definition of the service, not a quote. */
export const PEGGED_CURRENCIES: readonly string[] = ['USD', 'USDT', 'USDC'];

export class RatesDocumentError extends Error {
  override name = 'RatesDocumentError';
}

export interface ParseOptions {
  /** The flat form and a missing as_of are accepted (sandbox files and the built-in table). */
  allowUndated: boolean;
  now: Date;
}

const CURRENCY_CODE = /^[A-Z]{3,5}$/;
const RATE_SHAPE = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,12})?$/;
// Clocks differ a little; a date further ahead is a mistake, and would never go stale.
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
const DOCUMENT_FIELDS = ['as_of', 'usd_per_unit'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The document, or one error listing every problem (currency codes named, values never echoed). */
export function parseRatesDocument(
  value: unknown,
  source: string,
  options: ParseOptions,
): RatesDocument {
  const problems: string[] = [];
  let asOf: Date | null = null;
  let table: Record<string, unknown> = {};
  if (!isRecord(value)) {
    problems.push('it must be a JSON object {"as_of": ..., "usd_per_unit": {...}}');
  } else if (!('usd_per_unit' in value) && !('as_of' in value) && options.allowUndated) {
    table = value;
  } else {
    for (const key of Object.keys(value)) {
      if (!DOCUMENT_FIELDS.includes(key)) problems.push(`${key}: unknown field`);
    }
    asOf = parseAsOf(value.as_of, options, problems);
    if (isRecord(value.usd_per_unit)) table = value.usd_per_unit;
    else problems.push('usd_per_unit must be an object of currency code to decimal string');
  }
  const usdPerUnit = parseRates(table, problems);
  if (problems.length === 0 && usdPerUnit.size === 0 && !hasPegsOnly(table)) {
    problems.push('usd_per_unit is empty');
  }
  if (problems.length > 0) {
    throw new RatesDocumentError(`${source} is invalid: ${problems.join('; ')}.`);
  }
  return { asOf, usdPerUnit };
}

function hasPegsOnly(table: Record<string, unknown>): boolean {
  const codes = Object.keys(table);
  return codes.length > 0 && codes.every((code) => PEGGED_CURRENCIES.includes(code));
}

function parseAsOf(value: unknown, options: ParseOptions, problems: string[]): Date | null {
  if (value === undefined && options.allowUndated) return null;
  // The API's one date-time rule, so a date the API refuses (2026-02-30, 24:00) is refused here.
  const asOf = parseIsoDateTime(value);
  if (!asOf) {
    problems.push(
      'as_of must be an RFC 3339 date-time with an offset, e.g. "2026-05-01T12:00:00Z"',
    );
    return null;
  }
  if (asOf.getTime() - options.now.getTime() > MAX_CLOCK_SKEW_MS) {
    problems.push('as_of is in the future');
  }
  return asOf;
}

function parseRates(table: Record<string, unknown>, problems: string[]): Map<string, Decimal> {
  const rates = new Map<string, Decimal>();
  for (const [currency, rate] of Object.entries(table)) {
    if (!CURRENCY_CODE.test(currency)) {
      problems.push(`${JSON.stringify(currency.slice(0, 12))} is not a currency code`);
    } else if (typeof rate !== 'string' || !RATE_SHAPE.test(rate) || new Decimal(rate).isZero()) {
      problems.push(`the rate of ${currency} must be a positive decimal string such as "1.08"`);
    } else if (PEGGED_CURRENCIES.includes(currency)) {
      // Listed for completeness they must say 1; anything else means another base or direction.
      if (!new Decimal(rate).equals(1)) problems.push(`${currency} must be "1" (USD-pegged)`);
    } else {
      rates.set(currency, new Decimal(rate));
    }
  }
  return rates;
}
