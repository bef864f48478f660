import { parseOptions as parseKit } from '../kit/options';

export const PHASES = ['latency', 'throughput', 'mainnet'] as const;

const USAGE = `Usage: npm run bench:deposits [-- options]
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

export type BenchOptions = ReturnType<typeof parseOptions>;

export function parseOptions(argv = process.argv.slice(2)) {
  const parsed = parseKit(
    USAGE,
    {
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
    },
    argv,
  );
  const options = {
    build: parsed.build,
    phases: parsed.choices('phases', PHASES),
    payments: parsed.whole('payments'),
    // DEPOSIT_SCAN_INTERVAL_MS of the extra latency runs; the worker refuses values outside
    // 100-600000 ms, so say so before anything starts.
    intervalsMs: parsed.wholeList('intervals', 100),
    sessions: parsed.whole('sessions'),
    paid: parsed.whole('paid'),
    perBlock: parsed.whole('per-block'),
    mainnetSeconds: parsed.whole('mainnet-seconds', 10),
    mainnetPayments: parsed.whole('mainnet-payments'),
    foreignPerBlock: parsed.whole('foreign-per-block', 0),
    blockTimeSeconds: parsed.whole('block-time'),
    traceSql: Boolean(parsed.values['trace-sql']),
    cpuProfile: Boolean(parsed.values['cpu-prof']),
  };
  if (options.paid > options.sessions) parsed.fail('--paid cannot exceed --sessions.');
  return options;
}
