// npm run bench:webhooks [-- options]: events per second from status change to delivery on a
// loopback receiver, through the built API and ONE built worker, and what a dead endpoint (one
// that hangs, one that refuses connections) costs the live ones. See bench/webhooks/README.md.
import { relative } from 'node:path';
import { otherLoadWarnings } from '../kit/cpu';
import { freshTarget, postgresVersion } from '../kit/database';
import { build } from '../kit/processes';
import {
  describeMachine,
  fullMachineLine,
  gitDescription,
  quietness,
  quietnessWarnings,
} from '../kit/report';
import { runBenchmark } from '../kit/run';
import { startApi, startWorker, waitForPoolFill } from '../kit/services';
import { ROOT, SQL_TRACE_PRELOAD } from '../kit/settings';
import { RUN_MARGIN_MS, startGenerator, startReceiver } from './children';
import { BenchOptions, parseOptions, PhaseKind } from './options';
import { DeadKind, PhaseContext, PhaseResult, PhaseSpec, runPhase, warmUp } from './phase';
import { goalsOf, printReport, Report, writeReport } from './report';
import {
  benchEnvironment,
  NON_DEFAULT,
  SERVICE_DEFAULTS,
  serviceEnvironment,
  TARGET,
} from './settings';
import { createTargets } from './setup';
import { loggedErrors, verifySignatures } from './verify';

// Before the first phase: a cold worker, generator and receiver would make it look worse.
const WARM_UP_SECONDS = 10;

function phaseSpecs(options: BenchOptions): PhaseSpec[] {
  const { rate } = options;
  const spec = (kind: PhaseKind, liveRate = rate, dead: DeadKind | null = null, backlog = 0) => ({
    kind,
    name: dead ? kind : `live ${liveRate}/s${kind === 'live-repeat' ? ' again' : ''}`,
    liveRate,
    dead,
    backlog,
  });
  const specs: Record<PhaseKind, PhaseSpec> = {
    live: spec('live'),
    'dead-hanging': spec('dead-hanging', rate, 'hanging'),
    'dead-refused': spec('dead-refused', rate, 'refused'),
    'live-repeat': spec('live-repeat'),
    'dead-aged': spec('dead-aged', rate, 'aged', options.agedBacklog),
    ceiling: spec('ceiling', options.ceilingRate),
  };
  return options.phases.map((kind) => specs[kind]);
}

runBenchmark('webhooks', async (run) => {
  const { step } = run;
  const options = parseOptions();
  const logFiles = {
    api: run.log('api'),
    worker: run.log('worker'),
    receiver: run.log('receiver'),
    generator: run.log('generator'),
  };
  const start = quietness();
  const warnings = quietnessWarnings(start, 'start');
  warnings.forEach((warning) => step(`WARNING: ${warning}`));
  build(options.build, step);
  const db = await freshTarget(TARGET, step, benchEnvironment());
  run.onStop(() => db.end());
  const machine = describeMachine(await postgresVersion(db), 'no chain (WATCH_NETWORKS=none)');
  console.log(fullMachineLine(machine, start));

  const receiver = await startReceiver(logFiles.receiver);
  const ports = await receiver.ask('open', {
    live: options.merchants,
    // dead-hanging's, then dead-aged's.
    hanging: 2 * options.deadEndpoints,
    // One more free port, for the API.
    closed: options.deadEndpoints + 1,
  });
  const apiPort = ports.closed.pop() as number;
  step(`receiver up (live ports ${ports.live.join(', ')}); starting the API`);
  const api = await startApi({ env: serviceEnvironment(), logFile: logFiles.api, port: apiPort });
  step(`creating merchants (CLI) and their endpoints (POST /v1/webhook-endpoints)`);
  const targets = await createTargets(api, ports, options);
  step('starting the worker and the event generator');
  // Whether it delivers is the first check of the run (a probe event per endpoint).
  const worker = await startWorker({
    env: serviceEnvironment(),
    logFile: logFiles.worker,
    nodeOptions: options.traceSql ? ['--require', SQL_TRACE_PRELOAD] : [],
    ipc: options.traceSql,
  });
  // A new database's pool fill is half a minute of the worker's CPU, once per deployment.
  const filledInMs = await waitForPoolFill(db, worker);
  step(`the worker filled the pay-address pool (${(filledInMs / 1000).toFixed(1)} s)`);
  const generator = await startGenerator(logFiles.generator);
  const context: PhaseContext = {
    db,
    api,
    worker,
    receiver,
    generator,
    targets,
    options,
    pids: {
      worker: worker.child.pid ?? null,
      api: api.process.child.pid ?? null,
      generator: generator.process.child.pid ?? null,
      receiver: receiver.process.child.pid ?? null,
    },
    step,
  };
  await warmUp(context, { rate: targets.live.length, seconds: 1, inFlight: 1 });
  step(
    `the worker delivers (${targets.live.length} probe events received); warm-up: ` +
      `${options.rate} events/s for ${WARM_UP_SECONDS} s, not measured`,
  );
  await warmUp(context, {
    rate: options.rate,
    seconds: WARM_UP_SECONDS,
    inFlight: options.inFlight,
  });
  const phases: PhaseResult[] = [];
  for (const spec of phaseSpecs(options)) phases.push(await runPhase(context, spec));
  await generator.ask('close', undefined, RUN_MARGIN_MS);

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
  const logs = { api: loggedErrors(logFiles.api), worker: loggedErrors(logFiles.worker) };
  const end = quietness();
  warnings.push(
    ...otherLoadWarnings(phases),
    ...phases
      .filter((phase) => phase.drainMs === null)
      .map((phase) => `${phase.name}: the live backlog did not drain while dead endpoints were on`),
    ...quietnessWarnings(end, 'end'),
  );
  const report: Report = {
    startedAt: new Date(run.startedAt).toISOString(),
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
      Object.entries(logFiles).map(([name, path]) => [name, relative(ROOT, path)]),
    ),
  };
  printReport(report);
  writeReport(`${run.base}.json`, report);
  if (report.failures.length) process.exitCode = 1;
});
