import { parseArgs } from 'node:util';

// The dead phases between the live one they are compared with and its repeat (the noise between
// two identical phases); then a dead endpoint with the backlog it builds up; the ceiling last.
export const PHASE_KINDS = [
  'live',
  'dead-hanging',
  'dead-refused',
  'live-repeat',
  'dead-aged',
  'ceiling',
] as const;
export type PhaseKind = (typeof PHASE_KINDS)[number];

export const USAGE = `Usage: npm run bench:webhooks [-- options]
  --no-build              use dist/ as it is (default: npm run build first)
  --rate N                events/s offered to the live endpoints (default 500)
  --ceiling-rate N        the higher rate of the ceiling phase (default 800)
  --warmup S              seconds of each phase that are discarded (default 5)
  --duration S            measured seconds of each phase (default 20)
  --merchants N           live merchants, one endpoint each (default 8)
  --dead-share P          percent of a dead phase's events that go to dead endpoints, on top of
                          the live rate (default 20)
  --dead-endpoints N      dead endpoints in a dead phase, each its own merchant (default 1)
  --aged-backlog N        due deliveries the dead-aged phase's hanging endpoint(s) start with
                          (default 30000: what 4 minutes of a dead endpoint leave at 125 events/s)
  --in-flight N           status-change transactions the generator runs at once (default 16)
  --phases A,B            among ${PHASE_KINDS.join(', ')} (default: all, in that order)
  --trace-sql             preload bench/kit/sql-trace-preload.js into the worker: its
                          statements and SQL time per phase (diagnosis; adds a little overhead)`;

export interface BenchOptions {
  build: boolean;
  rate: number;
  ceilingRate: number;
  warmupSeconds: number;
  durationSeconds: number;
  merchants: number;
  deadSharePercent: number;
  deadEndpoints: number;
  agedBacklog: number;
  inFlight: number;
  phases: PhaseKind[];
  traceSql: boolean;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'no-build': { type: 'boolean', default: false },
      rate: { type: 'string', default: '500' },
      'ceiling-rate': { type: 'string', default: '800' },
      warmup: { type: 'string', default: '5' },
      duration: { type: 'string', default: '20' },
      merchants: { type: 'string', default: '8' },
      'dead-share': { type: 'string', default: '20' },
      'dead-endpoints': { type: 'string', default: '1' },
      'aged-backlog': { type: 'string', default: '30000' },
      'in-flight': { type: 'string', default: '16' },
      phases: { type: 'string', default: PHASE_KINDS.join(',') },
      'trace-sql': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const phases = values.phases.split(',').map((phase) => phase.trim());
  const unknown = phases.filter((phase) => !(PHASE_KINDS as readonly string[]).includes(phase));
  if (unknown.length) usageError(`--phases: unknown ${unknown.join(', ')}.`);
  const options: BenchOptions = {
    build: !values['no-build'],
    rate: wholeNumber(values.rate, 'rate', 1),
    ceilingRate: wholeNumber(values['ceiling-rate'], 'ceiling-rate', 1),
    warmupSeconds: wholeNumber(values.warmup, 'warmup', 0),
    durationSeconds: wholeNumber(values.duration, 'duration', 1),
    merchants: wholeNumber(values.merchants, 'merchants', 1),
    deadSharePercent: wholeNumber(values['dead-share'], 'dead-share', 1),
    deadEndpoints: wholeNumber(values['dead-endpoints'], 'dead-endpoints', 1),
    agedBacklog: wholeNumber(values['aged-backlog'], 'aged-backlog', 0),
    inFlight: wholeNumber(values['in-flight'], 'in-flight', 1),
    // In the documented order whatever order they were given in: dead phases compare with live.
    phases: PHASE_KINDS.filter((kind) => phases.includes(kind)),
    traceSql: values['trace-sql'],
  };
  if (options.deadSharePercent >= 100) usageError('--dead-share must be below 100.');
  return options;
}

function wholeNumber(value: string, name: string, minimum: number): number {
  const number = Number(value.trim());
  if (!Number.isInteger(number) || number < minimum) {
    usageError(`--${name} must be a whole number >= ${minimum}, got ${JSON.stringify(value)}.`);
  }
  return number;
}

function usageError(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}
