import { Decimal } from '@app/common/money/decimal-amount';

/**
 * a + b as the API writes amounts ("-73.345678", never "-73.34567799999999"). Expected balances
 * are computed from values read out of a database other suites share, so a JS number would
 * pass or fail depending on what those suites left there.
 */
export function plus(a: string | number, b: string | number): string {
  return new Decimal(a).plus(b).toFixed();
}
