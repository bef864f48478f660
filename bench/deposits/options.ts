import { parseArgs } from 'node:util';

export const PHASES = ['latency', 'throughput', 'mainnet'] as const;
export type Phase = (typeof PHASES)[number];

export const USAGE = `Usage: npm run bench:deposits [-- options]
  --no-build              use dist/ as it is (default: npm run build first)
  --phases A,B            which phases to run, in this order: latency, throughput, mainnet
                          (default all three)
  --payments N            payments per latency run, one at a time (default 30)
  --intervals A,B         extra latency runs with DEPOSIT_SCAN_INTERVAL_MS set, one worker each,
                          after the default one (default: none; on the devnet the worker polls
                          every 250 ms whatever the value, so they only confirm that)
  --sessions N            open sessions in the throughput phase (default 10000)
  --paid N                of which paid (default 1000)
  --per-block N           transfers per block in the throughput phase (default 100)
  --mainnet-seconds N     measured window of the mainnet-shaped phase (default 60)
  --mainnet-payments N    payments to our sessions in that window, at random moments (default 30)
  --foreign-per-block N   transfers to addresses that are not ours in every block (default 200)
  --block-time N          seconds between blocks in the mainnet-shaped phase (default 1)
  --trace-sql             preload bench/kit/sql-trace-preload.js into the worker: statements
                          and SQL time per scan tick (diagnosis; adds a little overhead)
  --cpu-prof              run the worker under node --cpu-prof (profiles in bench/results/)`;

export interface BenchOptions {
  build: boolean;
  phases: Phase[];
  payments: number;
  /** DEPOSIT_SCAN_INTERVAL_MS of the extra latency runs (the first run sets none). */
  intervalsMs: number[];
  sessions: number;
  paid: number;
  perBlock: number;
  mainnetSeconds: number;
  mainnetPayments: number;
  foreignPerBlock: number;
  blockTimeSeconds: number;
  traceSql: boolean;
  cpuProfile: boolean;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      phases: { type: 'string', default: PHASES.join(',') },
      payments: { type: 'string', default: '30' },
      intervals: { type: 'string', default: '' },
      sessions: { type: 'string', default: '10000' },
      paid: { type: 'string', default: '1000' },
      'per-block': { type: 'string', default: '100' },
      'mainnet-seconds': { type: 'string', default: '60' },
      'mainnet-payments': { type: 'string', default: '30' },
      'foreign-per-block': { type: 'string', default: '200' },
      'block-time': { type: 'string', default: '1' },
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
    phases: parsePhases(values.phases),
    payments: wholeNumber(values.payments, 'payments', 1),
    // The worker refuses intervals outside 100-600000 ms; say so before anything starts.
    intervalsMs: values.intervals.trim()
      ? values.intervals.split(',').map((part) => wholeNumber(part, 'intervals', 100))
      : [],
    sessions: wholeNumber(values.sessions, 'sessions', 1),
    paid: wholeNumber(values.paid, 'paid', 1),
    perBlock: wholeNumber(values['per-block'], 'per-block', 1),
    mainnetSeconds: wholeNumber(values['mainnet-seconds'], 'mainnet-seconds', 10),
    mainnetPayments: wholeNumber(values['mainnet-payments'], 'mainnet-payments', 1),
    foreignPerBlock: wholeNumber(values['foreign-per-block'], 'foreign-per-block', 0),
    blockTimeSeconds: wholeNumber(values['block-time'], 'block-time', 1),
    traceSql: values['trace-sql'],
    cpuProfile: values['cpu-prof'],
  };
  if (options.paid > options.sessions) usageError('--paid cannot exceed --sessions.');
  return options;
}

function parsePhases(value: string): Phase[] {
  const phases = value.split(',').map((part) => part.trim());
  for (const phase of phases) {
    if (!PHASES.includes(phase as Phase)) {
      usageError(`--phases: unknown phase ${JSON.stringify(phase)}; use ${PHASES.join(', ')}.`);
    }
  }
  return PHASES.filter((phase) => phases.includes(phase));
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
