import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench:treasury [-- options]
  --no-build                 use dist/ as it is (default: npm run build first)
  --addresses N              deposit addresses paid through the API and swept (default 1000)
  --reconcile-addresses N    deposit addresses with activity when reconciling (default 10000):
                             the swept ones plus N minus those, paid on the devnet
  --reconcile-runs N         treasury:reconcile runs, each timed (default 3)
  --sweep-interval-ms MS     a tuned setup: TREASURY_SWEEP_INTERVAL_MS for the worker (default:
                             not set, the service's 60,000)`;

export interface BenchOptions {
  build: boolean;
  addresses: number;
  reconcileAddresses: number;
  reconcileRuns: number;
  sweepIntervalMs: number | null;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      addresses: { type: 'string', default: '1000' },
      'reconcile-addresses': { type: 'string', default: '10000' },
      'reconcile-runs': { type: 'string', default: '3' },
      'sweep-interval-ms': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const addresses = wholeNumber(values.addresses, 'addresses');
  const reconcileAddresses = wholeNumber(values['reconcile-addresses'], 'reconcile-addresses');
  if (reconcileAddresses <= addresses) {
    usageError('--reconcile-addresses must be more than --addresses.');
  }
  const interval = values['sweep-interval-ms'];
  return {
    build: !values['no-build'],
    addresses,
    reconcileAddresses,
    reconcileRuns: wholeNumber(values['reconcile-runs'], 'reconcile-runs'),
    sweepIntervalMs: interval === undefined ? null : wholeNumber(interval, 'sweep-interval-ms'),
  };
}

function wholeNumber(value: string, name: string): number {
  const number = Number(value.trim());
  if (!Number.isInteger(number) || number < 1) {
    usageError(`--${name} must be a whole number >= 1, got ${JSON.stringify(value)}.`);
  }
  return number;
}

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}
