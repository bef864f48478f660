import { parseOptions as parseKit } from '../kit/options';

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

const USAGE = `Usage: npm run bench:webhooks [-- options]
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

export type BenchOptions = ReturnType<typeof parseOptions>;

export function parseOptions(argv = process.argv.slice(2)) {
  const parsed = parseKit(
    USAGE,
    {
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
    },
    argv,
  );
  const options = {
    build: parsed.build,
    rate: parsed.whole('rate'),
    ceilingRate: parsed.whole('ceiling-rate'),
    warmupSeconds: parsed.whole('warmup', 0),
    durationSeconds: parsed.whole('duration'),
    merchants: parsed.whole('merchants'),
    deadSharePercent: parsed.whole('dead-share'),
    deadEndpoints: parsed.whole('dead-endpoints'),
    agedBacklog: parsed.whole('aged-backlog', 0),
    inFlight: parsed.whole('in-flight'),
    // In the documented order whatever order they were given in: dead phases compare with live.
    phases: parsed.choices('phases', PHASE_KINDS),
    traceSql: Boolean(parsed.values['trace-sql']),
  };
  if (options.deadSharePercent >= 100) parsed.fail('--dead-share must be below 100.');
  return options;
}
