import { parseArgs } from 'node:util';
import type { FundingMode } from './funding';

export const USAGE = `Usage: npm run bench:payouts [-- options]
  --no-build              use dist/ as it is (default: npm run build first)
  --payouts N             payouts per phase (default 1000): one worker, then two
  --concurrency N         requests in flight while creating them (default 32)
  --merchants N           merchants the second and third phases spread their payouts over
                          (default 10; the first phase is one merchant's)
  --fund session|ledger   how the merchant's balance is funded: a checkout session paid on the
                          devnet and settled by the worker (default), or one SQL ledger credit
  --cpu-prof              run the API and the workers under node --cpu-prof (profiles in
                          bench/results/)`;

export interface BenchOptions {
  build: boolean;
  payouts: number;
  concurrency: number;
  merchants: number;
  fund: FundingMode;
  cpuProfile: boolean;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      payouts: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '32' },
      merchants: { type: 'string', default: '10' },
      fund: { type: 'string', default: 'session' },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.fund !== 'session' && values.fund !== 'ledger') {
    usageError(`--fund must be session or ledger, got ${JSON.stringify(values.fund)}.`);
  }
  return {
    build: !values['no-build'],
    payouts: wholeNumber(values.payouts, 'payouts'),
    concurrency: wholeNumber(values.concurrency, 'concurrency'),
    merchants: wholeNumber(values.merchants, 'merchants'),
    fund: values.fund,
    cpuProfile: values['cpu-prof'],
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
