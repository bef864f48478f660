import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench:deposits [-- options]
  --no-build              use dist/ as it is (default: npm run build first)
  --intervals A,B         DEPOSIT_SCAN_INTERVAL_MS of the latency runs, one worker each
                          (default 3000,500); the throughput phase runs on the last one
  --payments N            payments per latency run, one at a time (default 30)
  --sessions N            open sessions in the throughput phase (default 10000)
  --paid N                of which paid (default 1000)
  --per-block N           transfers per block in the throughput phase (default 100)
  --trace-sql             preload bench/deposits/sql-trace-preload.js into the worker: statements
                          and SQL time per scan tick (diagnosis; adds a little overhead)
  --cpu-prof              run the worker under node --cpu-prof (profiles in bench/results/)`;

export interface BenchOptions {
  build: boolean;
  intervalsMs: number[];
  payments: number;
  sessions: number;
  paid: number;
  perBlock: number;
  traceSql: boolean;
  cpuProfile: boolean;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      intervals: { type: 'string', default: '3000,500' },
      payments: { type: 'string', default: '30' },
      sessions: { type: 'string', default: '10000' },
      paid: { type: 'string', default: '1000' },
      'per-block': { type: 'string', default: '100' },
      'trace-sql': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const options: BenchOptions = {
    build: !values['no-build'],
    // The worker refuses intervals outside 100-600000 ms; say so before anything starts.
    intervalsMs: values.intervals.split(',').map((part) => wholeNumber(part, 'intervals', 100)),
    payments: wholeNumber(values.payments, 'payments', 1),
    sessions: wholeNumber(values.sessions, 'sessions', 1),
    paid: wholeNumber(values.paid, 'paid', 1),
    perBlock: wholeNumber(values['per-block'], 'per-block', 1),
    traceSql: values['trace-sql'],
    cpuProfile: values['cpu-prof'],
  };
  if (options.paid > options.sessions) usageError('--paid cannot exceed --sessions.');
  return options;
}

function wholeNumber(value: string, name: string, minimum: number): number {
  const number = Number(value.trim());
  if (!Number.isInteger(number) || number < minimum) {
    usageError(`--${name} must be whole numbers >= ${minimum}, got ${JSON.stringify(value)}.`);
  }
  return number;
}

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}
