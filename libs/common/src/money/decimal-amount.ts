import Decimal from 'decimal.js';

// Amounts are exact decimals end to end: strings on the wire, NUMERIC in PostgreSQL,
// decimal.js in between. A JS number never holds money.
Decimal.set({ precision: 80, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -80, toExpPos: 80 });

/** A plain positive-or-zero decimal: no sign, no exponent, no leading zeros, no bare dot. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export interface DecimalShape {
  maxIntegerDigits: number;
  maxFractionDigits: number;
}

/** Why a string is not an acceptable amount, or null when it is. */
export function describeAmountProblem(value: unknown, shape: DecimalShape): string | null {
  if (typeof value !== 'string')
    return 'must be a decimal string such as "10.50", not a JSON number';
  if (!PLAIN_DECIMAL.test(value)) return 'must be a plain decimal string such as "10.50"';
  const [integer, fraction = ''] = value.split('.');
  if (integer.length > shape.maxIntegerDigits) {
    return `must have at most ${shape.maxIntegerDigits} integer digits`;
  }
  if (fraction.length > shape.maxFractionDigits) {
    return `must have at most ${shape.maxFractionDigits} fractional digits`;
  }
  // A plain decimal is zero exactly when it has no digit but 0 (no number parsing per request).
  if (!/[1-9]/.test(value)) return 'must be greater than zero';
  return null;
}

/** Canonical wire form: no exponent, no trailing zeros ("10.500000" -> "10.5"). */
export function formatAmount(value: Decimal.Value): string {
  // PostgreSQL's NUMERIC text is already plain: only its trailing zeros go, as text (a list of a
  // hundred sessions formats about 500 amounts; a Decimal costs 1.6 µs each, this 0.1).
  if (typeof value === 'string' && PLAIN_DECIMAL.test(value)) return withoutTrailingZeros(value);
  return new Decimal(value).toFixed();
}

function withoutTrailingZeros(plain: string): string {
  if (!plain.includes('.')) return plain;
  let end = plain.length;
  while (plain[end - 1] === '0') end -= 1;
  if (plain[end - 1] === '.') end -= 1;
  return plain.slice(0, end);
}

/** Fixed number of fractional digits, for rates ("1.08" -> "1.08000000"). */
export function formatFixed(value: Decimal.Value, fractionDigits: number): string {
  return new Decimal(value).toFixed(fractionDigits);
}

export { Decimal };
