import type { INestApplicationContext } from '@nestjs/common';
import { NETWORK_NAMES, NetworkName } from '@app/chains';
import { UsageError } from './usage-error';

/** Options and arguments as the commands read them: one a command cannot take is a UsageError. */

export type Options = Record<string, string | string[] | boolean | undefined>;
/** `args` are the positional arguments after the command name (only some commands take one). */
export type Command = (
  app: INestApplicationContext,
  options: Options,
  args: string[],
) => Promise<unknown>;

export function theId(args: string[], what: string): string {
  if (args.length !== 1 || args[0].trim() === '') {
    throw new UsageError(`Give exactly one ${what} id.`);
  }
  return args[0].trim();
}

/** A short free-text option (a name, a reason), required. */
export function requiredText(options: Options, name: string, maxLength: number): string {
  const value = required(options, name);
  if (value.length > maxLength) {
    throw new UsageError(`--${name} must be at most ${maxLength} characters.`);
  }
  return value;
}

/** An option given once or more, each value possibly a comma list, each one of `allowed`. */
export function listOption<T extends string>(
  options: Options,
  name: string,
  allowed: readonly T[],
): T[] {
  const given = options[name];
  if (given === undefined) return [];
  const raw = Array.isArray(given) ? given : [String(given)];
  const values = raw.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const value of values) {
    if (!allowed.includes(value as T)) {
      throw new UsageError(`--${name} must be one of ${allowed.join(', ')}.`);
    }
  }
  return [...new Set(values)] as T[];
}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required.`);
  return value.trim();
}

/** A decimal option, or null when absent (null means "use the configured default"). */
export function optionalDecimal(options: Options, name: string, shape: RegExp): string | null {
  const value = options[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !shape.test(value)) {
    throw new UsageError(`--${name} must be a decimal such as "1.5".`);
  }
  return value;
}

export function networkOption(options: Options): NetworkName {
  const network = required(options, 'network');
  if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
    throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
  }
  return network as NetworkName;
}

/** A whole-number option from `min` to `max`, or `fallback` when absent. */
export function wholeNumber(
  options: Options,
  name: string,
  min: number,
  max: number,
  fallback?: number,
): number {
  const given = options[name];
  if (given === undefined && fallback !== undefined) return fallback;
  const value = typeof given === 'string' && /^[0-9]{1,16}$/.test(given) ? Number(given) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/**
 * A required amount in wei (the native coin's base units), exactly: digits only, no sign, no
 * decimal point, no exponent, at most 30 digits (10^12 coins: far above any fee, within the
 * ledger's numeric(38, 18)). A bigint, never a JS number.
 */
export function weiOption(options: Options, name: string): bigint {
  const given = options[name];
  if (typeof given !== 'string' || !/^(0|[1-9][0-9]{0,29})$/.test(given)) {
    throw new UsageError(
      `--${name} must be a whole number of wei (digits only, at most 30), like 21000000000000.`,
    );
  }
  return BigInt(given);
}

/**
 * A required EVM transaction hash, lower-cased: the form rows and references are keyed by
 * (network_fee_receipts, `network_fee:<network>:<tx>`), so an upper-case or checksummed copy from
 * an explorer finds its row rather than "no fee recorded".
 */
export function evmTxHashOption(options: Options, name: string): string {
  const given = options[name];
  const hash = typeof given === 'string' ? given.trim().toLowerCase() : '';
  if (!/^0x[0-9a-f]{64}$/.test(hash)) {
    throw new UsageError(`--${name} must be a transaction hash: 0x and 64 hex digits.`);
  }
  return hash;
}
