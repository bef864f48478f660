import { parseArgs, ParseArgsConfig } from 'node:util';

/**
 * Command-line options of a benchmark: node's parseArgs with --help and --no-build built in, and
 * checks that name the option and print the usage (exit 2) before anything starts.
 */

type Spec = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<T extends Spec> {
  values: ReturnType<typeof parseArgs<{ args: string[]; options: T }>>['values'];
  /** false with --no-build. */
  build: boolean;
  /** A whole number >= minimum, else usage and exit 2. */
  whole(name: keyof T & string, minimum?: number): number;
  /** A comma-separated list of whole numbers >= minimum (empty: none). */
  wholeList(name: keyof T & string, minimum?: number): number[];
  /** A comma-separated subset of `choices`, in the order of `choices`. */
  choices<C extends string>(name: keyof T & string, choices: readonly C[]): C[];
  /** Exactly one of `choices`. */
  choice<C extends string>(name: keyof T & string, choices: readonly C[]): C;
  fail(message: string): never;
}

export function parseOptions<T extends Spec>(
  usage: string,
  options: T,
  argv = process.argv.slice(2),
): Parsed<T> {
  const fail = (message: string): never => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...options,
        'no-build': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
    throw error;
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const text = (name: string) => String(values[name] ?? '');
  const toWhole = (value: string, name: string, minimum: number) => {
    const number = Number(value.trim());
    if (value.trim() === '' || !Number.isInteger(number) || number < minimum) {
      fail(`--${name} must be a whole number >= ${minimum}, got ${JSON.stringify(value)}.`);
    }
    return number;
  };
  return {
    values: values as Parsed<T>['values'],
    build: !values['no-build'],
    whole: (name, minimum = 1) => toWhole(text(name), name, minimum),
    wholeList: (name, minimum = 1) =>
      text(name).trim()
        ? text(name)
            .split(',')
            .map((part) => toWhole(part, name, minimum))
        : [],
    choices: <C extends string>(name: string, all: readonly C[]) => {
      const picked = text(name)
        .split(',')
        .map((part) => part.trim());
      for (const choice of picked) {
        if (!all.includes(choice as C)) {
          fail(`--${name}: unknown ${JSON.stringify(choice)}; use ${all.join(', ')}.`);
        }
      }
      return all.filter((choice) => picked.includes(choice));
    },
    choice: <C extends string>(name: string, all: readonly C[]) => {
      const value = text(name).trim() as C;
      if (!all.includes(value)) {
        fail(`--${name} must be one of ${all.join(', ')}, got ${JSON.stringify(value)}.`);
      }
      return value;
    },
    fail,
  };
}
