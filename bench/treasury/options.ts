import { parseOptions as parseKit } from '../kit/options';

const USAGE = `Usage: npm run bench:treasury [-- options]
  --no-build                 use dist/ as it is (default: npm run build first)
  --addresses N              deposit addresses paid through the API and swept (default 1000)
  --reconcile-addresses N    deposit addresses with activity when reconciling (default 10000):
                             the swept ones plus N minus those, paid on the devnet
  --reconcile-runs N         treasury:reconcile runs, each timed (default 3)
  --sweep-interval-ms MS     a tuned setup: TREASURY_SWEEP_INTERVAL_MS for the worker (default:
                             not set, the service's 60,000)`;

export type BenchOptions = ReturnType<typeof parseOptions>;

export function parseOptions(argv = process.argv.slice(2)) {
  const parsed = parseKit(
    USAGE,
    {
      addresses: { type: 'string', default: '1000' },
      'reconcile-addresses': { type: 'string', default: '10000' },
      'reconcile-runs': { type: 'string', default: '3' },
      'sweep-interval-ms': { type: 'string' },
    },
    argv,
  );
  const addresses = parsed.whole('addresses');
  const reconcileAddresses = parsed.whole('reconcile-addresses');
  if (reconcileAddresses <= addresses) {
    parsed.fail('--reconcile-addresses must be more than --addresses.');
  }
  return {
    build: parsed.build,
    addresses,
    reconcileAddresses,
    reconcileRuns: parsed.whole('reconcile-runs'),
    sweepIntervalMs:
      parsed.values['sweep-interval-ms'] === undefined ? null : parsed.whole('sweep-interval-ms'),
  };
}
