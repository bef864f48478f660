// npm run bench:webhooks [-- options]: events per second from status change to delivery on a
// loopback receiver, through the built API and ONE built worker, and what a dead endpoint (one
// that hangs, one that refuses connections) costs the live ones. See bench/README.md.
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from 'pg';
import { loadAverage, OTHER_LOAD_WARNING_CORES, otherBenchmarks } from '../deposits/cpu';
import { connectDatabase, flushRedis, postgresVersion, resetDatabase } from '../deposits/database';
import { build, installCleanup, stopAllProcesses } from '../deposits/processes';
import { describeMachine, gitDescription } from '../deposits/report';
import { fullMachineLine, Quietness, quietnessWarnings } from '../payouts/report';
import { BENCH_APPLICATION_NAME } from '../payouts/waits';
import { Generator } from './generator-client';
import { BenchOptions, parseOptions, PhaseKind } from './options';
import { DeadKind, PhaseContext, PhaseResult, PhaseSpec, runPhase } from './phase';
import { Receiver } from './receiver-client';
import { goalsOf, printReport, Report, writeReport } from './report';
import { waitForPoolFill } from '../payouts/services';
import { startApi, startWorker } from './services';
import {
  API_MAIN,
  benchEnvironment,
  CLI_MAIN,
  DATABASE,
  DATABASE_URL,
  NON_DEFAULT,
  REDIS_URL,
  RESULTS_DIR,
  ROOT,
  SERVICE_DEFAULTS,
  WORKER_MAIN,
} from './settings';
import { createTargets, warmUp } from './setup';
import { loggedErrors, verifySignatures } from './verify';

const startedAt = Date.now();
// Before the first phase: a cold worker, generator and receiver would make it look worse.
const WARM_UP_SECONDS = 10;
// Benchmarks and test runs that compete for the same cores, by their entry point.
const OTHER_BENCHMARKS = [
  'bench/api/run.js',
  'bench/deposits/run.ts',
  'bench/payouts/run.ts',
  'node_modules/.bin/jest',
];

function step(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

function runFiles() {
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `webhooks-${stamp}`);
  return {
    report: `${base}.json`,
    logs: {
      api: `${base}.api.log`,
      worker: `${base}.worker.log`,
      receiver: `${base}.receiver.log`,
      generator: `${base}.generator.log`,
    },
  };
}

function quietness(): Quietness {
  return { loadAverage: loadAverage(), otherBenchmarks: otherBenchmarks(OTHER_BENCHMARKS) };
}

function phaseSpecs(options: BenchOptions): PhaseSpec[] {
  const { rate } = options;
  const live = (kind: PhaseKind, liveRate: number): PhaseSpec => ({
    kind,
    name: kind === 'live-repeat' ? `live ${liveRate}/s again` : `live ${liveRate}/s`,
    liveRate,
    dead: null,
    backlog: 0,
  });
  const dead = (kind: PhaseKind, deadKind: DeadKind, backlog = 0): PhaseSpec => ({
    kind,
    name: kind,
    liveRate: rate,
    dead: deadKind,
    backlog,
  });
  const specs: Record<PhaseKind, PhaseSpec> = {
    live: live('live', rate),
    'dead-hanging': dead('dead-hanging', 'hanging'),
    'dead-refused': dead('dead-refused', 'refused'),
    'live-repeat': live('live-repeat', rate),
    'dead-aged': dead('dead-aged', 'aged', options.agedBacklog),
    ceiling: live('ceiling', options.ceilingRate),
  };
  return options.phases.map((kind) => specs[kind]);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const files = runFiles();
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));
  let db: Client | null = null;
  installCleanup(stopAllProcesses);
  try {
    build(options.build, step, [API_MAIN, WORKER_MAIN, CLI_MAIN]);
    step(`database ${DATABASE}: drop, create, migrate; Redis ${REDIS_URL}: flush`);
    await resetDatabase(DATABASE_URL, benchEnvironment());
    await flushRedis(REDIS_URL);
    db = await connectDatabase(DATABASE_URL);
    // Not sampled with the service's sessions.
    await db.query(`SET application_name = '${BENCH_APPLICATION_NAME}'`);
    const machine = describeMachine(await postgresVersion(db), 'no chain (WATCH_NETWORKS=none)');
    console.log(fullMachineLine(machine, start));

    const receiver = await Receiver.start(files.logs.receiver);
    const ports = await receiver.open({
      live: options.merchants,
      // dead-hanging's, then dead-aged's.
      hanging: 2 * options.deadEndpoints,
      // One more free port, for the API.
      closed: options.deadEndpoints + 1,
    });
    const apiPort = ports.closed.pop() as number;
    step(`receiver up (live ports ${ports.live.join(', ')}); starting the API`);
    const api = await startApi(apiPort, files.logs.api);
    step(`creating merchants (CLI) and their endpoints (POST /v1/webhook-endpoints)`);
    const targets = await createTargets(api, ports, options);
    step('starting the worker and the event generator');
    const worker = startWorker(files.logs.worker, options.traceSql);
    // A new database's pool fill is half a minute of the worker's CPU, once per deployment.
    const filledInMs = await waitForPoolFill(db, worker.process);
    step(`the worker filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`);
    const generator = await Generator.start(files.logs.generator);
    const services = { worker, generator, receiver };
    await warmUp(db, services, targets, { rate: targets.live.length, seconds: 1, inFlight: 1 });
    step(
      `the worker delivers (${targets.live.length} probe events received); warm-up: ` +
        `${options.rate} events/s for ${WARM_UP_SECONDS} s, not measured`,
    );
    await warmUp(db, services, targets, {
      rate: options.rate,
      seconds: WARM_UP_SECONDS,
      inFlight: options.inFlight,
    });

    const context: PhaseContext = {
      db,
      api,
      worker,
      receiver,
      generator,
      targets,
      options,
      pids: {
        worker: worker.process.child.pid ?? null,
        api: api.process.child.pid ?? null,
        generator: generator.process.child.pid ?? null,
        receiver: receiver.process.child.pid ?? null,
      },
      step,
    };
    const phases: PhaseResult[] = [];
    for (const spec of phaseSpecs(options)) phases.push(await runPhase(context, spec));
    await generator.close();

    step('verifying signatures and logs');
    const secretOf = new Map(
      Object.values(targets)
        .flat()
        .map((target) => [target.receiverKey, target.endpoint.secret]),
    );
    const signatures = verifySignatures(
      phases.flatMap((phase) => phase.samples),
      secretOf,
    );
    const logs = { api: loggedErrors(files.logs.api), worker: loggedErrors(files.logs.worker) };
    const end = quietness();
    warnings.push(
      ...phases
        .filter((phase) => (phase.cpu.otherCores ?? 0) > OTHER_LOAD_WARNING_CORES)
        .map((phase) => `${phase.name}: other processes used ${phase.cpu.otherCores} cores`),
      ...phases
        .filter((phase) => phase.drainMs === null)
        .map(
          (phase) => `${phase.name}: the live backlog did not drain while dead endpoints were on`,
        ),
      ...quietnessWarnings(end, 'end'),
    );
    const report: Report = {
      startedAt: new Date(startedAt).toISOString(),
      git: gitDescription(),
      machine,
      quietness: { start, end },
      options,
      service: { ...SERVICE_DEFAULTS, ...NON_DEFAULT },
      phases,
      goals: goalsOf(phases, options.rate),
      verification: { signatures, logs },
      warnings: [...new Set(warnings)],
      failures: [
        ...phases.flatMap((phase) => phase.failures.map((failure) => `${phase.name}: ${failure}`)),
        ...signatures.failures.map((failure) => `signature: ${failure}`),
        ...Object.entries(logs)
          .filter(([, errors]) => errors.count > 0)
          .map(([name, errors]) => `${name} logged ${errors.count} errors: ${errors.first[0]}`),
      ],
      files: Object.fromEntries(
        Object.entries(files.logs).map(([name, path]) => [name, relative(ROOT, path)]),
      ),
    };
    printReport(report);
    writeReport(files.report, report);
    if (report.failures.length) process.exitCode = 1;
  } finally {
    await stopAllProcesses();
    await db?.end();
  }
}

main().catch((error: unknown) => {
  console.error('\n[bench] FAILED:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
