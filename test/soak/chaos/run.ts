// The sandbox configuration the end-to-end suites run with (test vectors, no rate limits); the
// soak's own database, Redis and chains are set on top of it by the cluster.
import '../../setup/test-env';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { CliProcess } from '../../support/cli-process';
import { SeededRandom } from '../../support/seeded-random';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { ApiClient } from './api-client';
import {
  continuousChecks,
  creditedOnce,
  eventsDelivered,
  Invariant,
  payoutsMatchChain,
  query,
  reorgedPayments,
  sequenceGaps,
  serverErrors,
  tronPayoutsMatchChain,
} from './checks';
import { Cluster } from './cluster';
import { drain } from './drain';
import { HEAP_SLOPE_LIMIT_MB_PER_MIN, HEAP_WARM_UP_MS, HeapSampler } from './heap';
import { Load } from './load';
import { flakyCycle, MemorySampler, receivedOrder } from './monitors';
import { FAULT_KINDS, FaultKind, Nemesis, parseFaultGap } from './nemesis';
import { SoakReport, writeReport } from './report';
import { fundHotWallet, prepareMerchant } from './setup';

/*
 * `npm run soak -- --minutes N [--seed S] [--faults kind,kind] [--fault-gap MIN-MAX]
 * [--every-fault] [--deadline-minutes M] [--results DIR]`: issue 27's chaos soak (--faults: the
 * nemesis's kinds, all by default, see nemesis.ts; --fault-gap: seconds between faults, 20-60 by
 * default; --every-fault: the load goes on past N minutes until each kind given has struck once;
 * --deadline-minutes: the whole run is given up, exit 3, past M minutes). `npm run soak:ci` is
 * the CI version (package.json, docs/operations.md "Chaos soak"). The built API
 * (two processes) and two built workers on the soak's own PostgreSQL and Redis, anvil behind an
 * RPC fault proxy and the fake TRON node, under a steady mixed load while a seeded nemesis
 * injects a fault every 20–60 s. Invariants are checked every 15 s and after a drain; the
 * report (Markdown + JSON) goes to test-results/soak/<time>/. Exit code 0 when all held, 1 when
 * an invariant failed, 2 when the run could not go on, 3 past its deadline.
 */

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const minutes = Number(option('minutes') ?? 30);
if (!(minutes > 0)) throw new Error('--minutes must be a positive number');
const seed = option('seed') ?? process.env.SOAK_SEED;
const random = seed ? new SeededRandom(Number(seed)) : SeededRandom.fromEnvironment('SOAK_SEED');
const faultKinds = (option('faults')?.split(',') ?? [...FAULT_KINDS]) as FaultKind[];
for (const kind of faultKinds)
  if (!FAULT_KINDS.includes(kind))
    throw new Error(`--faults: no fault ${kind} (${FAULT_KINDS.join(', ')})`);
const faultGap = parseFaultGap(option('fault-gap'));
const everyFault = process.argv.includes('--every-fault');
const deadlineMinutes = option('deadline-minutes') ? Number(option('deadline-minutes')) : undefined;
if (deadlineMinutes !== undefined && !(deadlineMinutes > minutes))
  throw new Error('--deadline-minutes must be more than --minutes');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir =
  option('results') ?? join(__dirname, '..', '..', '..', 'test-results', 'soak', stamp);
mkdirSync(resultsDir, { recursive: true });

const started = Date.now();
// ts-node compiling and loading the modules (the apps' too, for the in-process steps) until here.
const startupSeconds = Math.round(process.uptime() * 10) / 10;
const seconds = (from = started) => Math.round((Date.now() - from) / 1000);
function log(line: string): void {
  const text = `[${seconds()} s] ${line}`;
  process.stdout.write(`${text}\n`);
  appendFileSync(join(resultsDir, 'soak.log'), `${new Date().toISOString()} ${text}\n`);
}

/**
 * The operator CLI for `treasury:reconcile`, built while the soak starts, or the build the e2e
 * suites share when its sources have not changed since (a minute saved). In a checkout other
 * people edit, a file renamed mid-build fails it: tried again, three times in all.
 */
async function buildCli(): Promise<CliProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await CliProcess.shared();
    } catch (error) {
      if (attempt === 3) throw error;
      log(`CLI build failed (${String((error as Error).message).slice(0, 160)}); again`);
    }
  }
}

/**
 * The plain closing line CI reads ('N passed, N failed'), one count per invariant: always the
 * last line printed.
 */
function closingLine(passed: number, failed: number): void {
  process.stdout.write(`soak: ${passed} passed, ${failed} failed\n`);
}

/** The run's services, stopped by the deadline if the run is still going then. */
let runningCluster: Cluster | undefined;

async function main(): Promise<number> {
  log(
    `chaos soak: ${minutes} min${everyFault ? ' (longer until every fault has struck)' : ''}, seed ${random.seed}, ` +
      `faults ${faultKinds.join(',')} every ${faultGap.min}-${faultGap.max} s, modules loaded in ${startupSeconds} s, results in ${resultsDir}`,
  );
  const cluster = new Cluster(join(resultsDir, 'logs'));
  runningCluster = cluster;
  const [steady, flaky] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
  const cliStarted = Date.now();
  let cliSeconds = 0;
  const cli = buildCli().then((built) => {
    cliSeconds = seconds(cliStarted);
    return built;
  });
  cli.catch(() => undefined);
  const memory = new MemorySampler(() => cluster.processes);
  const heap = new HeapSampler(() => cluster.processes);
  const violations: SoakReport['violationsDuringRun'] = [];
  let stopFlaky = () => undefined as void;
  try {
    cluster.boot['ts-node: modules compiled and loaded (before the first line)'] = startupSeconds;
    await cluster.prepare(log);
    // The services boot while the merchant is made and the wallets funded (side by side: the
    // funding is booked once a booted worker has registered the wallets).
    const bootStart = Date.now();
    const [merchant] = await Promise.all([
      cluster
        .timed('merchant and its webhook endpoints (in-process API, beside the boots)', () =>
          prepareMerchant({ steady: `${steady.url}/hooks`, flaky: `${flaky.url}/hooks` }),
        )
        .then((made) => {
          log('merchant ready');
          return made;
        }),
      cluster
        .timed('two APIs and two workers booted (at once)', () => cluster.startServices())
        .then(() => log('two APIs and two workers up')),
      cluster
        .timed('hot wallets funded and booked (in-process CLI module, beside the boots)', () =>
          fundHotWallet(cluster, minutes),
        )
        .then(() => log('hot wallets funded and booked')),
    ]);
    cluster.boot['boots, merchant and funding (wall clock)'] = seconds(bootStart);
    const setupSeconds = seconds();

    const client = new ApiClient(cluster.apiPorts(), merchant.apiKey);
    const load = new Load(
      client,
      cluster.devnet,
      cluster.tron,
      new SeededRandom(random.seed ^ 0x2545f491),
    );
    const nemesis = new Nemesis(cluster, load, random, log, faultKinds, faultGap);
    stopFlaky = flakyCycle(flaky);
    memory.start();
    heap.start();
    const loadStart = Date.now();
    const loadEnd = loadStart + minutes * 60_000;
    const loadRun = load.run();
    // A fault that could not be injected or recovered from (a restart that never came up) ends
    // the nemesis: the run goes on to its checks and fails.
    let nemesisError: Error | undefined;
    const nemesisRun = nemesis.run(loadEnd, everyFault).catch((error: Error) => {
      nemesisError = error;
      log(`NEMESIS FAILED: ${error.message}`);
    });
    const checker = setInterval(() => {
      continuousChecks(cluster.postgres.url)
        .then((results) => {
          for (const result of results.filter((r) => !r.held)) {
            violations.push({
              at: new Date().toISOString(),
              name: result.name,
              detail: result.detail,
            });
            log(`VIOLATION ${result.name}: ${result.detail}`);
          }
        })
        // PostgreSQL down: the next round checks.
        .catch(() => undefined);
    }, 15_000);
    const progress = setInterval(
      () =>
        log(
          `load: ${load.sessions.length} sessions, ${load.payouts.length} payouts, ` +
            `${client.answers.length} answers, ${nemesis.faults.length} faults, ` +
            `${steady.received.length} + ${flaky.received.length} deliveries`,
        ),
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, minutes * 60_000));
    // The load lasts N minutes whatever the faults took (a restart under a loaded machine takes
    // minutes: the load, and so the drain, would grow with them). --every-fault: the kinds not
    // drawn yet strike after it, in the seeded order, while the service works off what it was
    // given (top-ups and refunds under way, payouts, sweeps, deliveries); the drain is timed
    // after the last one.
    log(
      `load: no new steps after ${minutes} min${
        everyFault && nemesis.kindsNotYetStruck.length
          ? `; faults not drawn yet strike now: ${nemesis.kindsNotYetStruck.join(', ')}`
          : ''
      }`,
    );
    let stepsEndedSeconds = 0;
    const loadStopped = load.stop().then(() => {
      stepsEndedSeconds = seconds(loadStart);
    });
    const tail = (async () => {
      while (everyFault && nemesis.kindsNotYetStruck.length && !nemesisError)
        await new Promise((resolve) => setTimeout(resolve, 500));
      nemesis.stop();
      await nemesisRun;
    })();
    await Promise.all([loadStopped, loadRun, tail]);
    clearInterval(progress);
    // Load, faults after it and the steps under way: until the drain starts.
    const loadSeconds = seconds(loadStart);
    log(
      `nemesis stopped after ${nemesis.faults.length} faults, load steps under way ended ` +
        `${stepsEndedSeconds - minutes * 60} s after the load`,
    );

    // Drain: every transfer booked, every payout, refund and sweep ended, every event delivered.
    const drainStart = Date.now();
    const url = cluster.postgres.url;
    const drained = await drain({
      url,
      merchantId: merchant.id,
      sessions: load.sessions,
      steady,
      timeoutMs: 600_000,
      log,
    });
    const drainSeconds = seconds(drainStart);
    log(
      `${drained.drained ? 'drained' : `drain INCOMPLETE ${JSON.stringify(drained.open)}`} in ${drainSeconds} s ` +
        `(${drained.reconcileTries} reconciliations): ${JSON.stringify(drained.steps)}`,
    );
    clearInterval(checker);
    memory.stop();
    heap.stop();
    stopFlaky();

    // The books against the chain, with nothing moving: the processes stopped first.
    const checksStart = Date.now();
    await Promise.allSettled(cluster.processes.map((process) => process.kill()));
    const builtCli = await cli;
    const cliWaitSeconds = seconds(checksStart);
    // The operator's CLI process beside the database's and chains' checks (it only reads).
    const reconciling = builtCli.run('treasury:reconcile');
    // The fake node mines on: nothing more is broadcast, the checks read a chain standing still.
    const invariants: Invariant[] = [];
    invariants.push(...(await continuousChecks(url)));
    invariants.push(await creditedOnce(url, load.sessions));
    invariants.push(await reorgedPayments(url, load.sessions));
    invariants.push(
      ...(await payoutsMatchChain(url, cluster.devnet, cluster.hot.address, merchant.id)),
    );
    invariants.push(
      await tronPayoutsMatchChain(url, cluster.tron, cluster.tronHotKey, merchant.id),
    );
    const reconcile = await reconciling;
    invariants.push({
      name: 'treasury:reconcile exits 0',
      held: reconcile.code === 0,
      detail: `exit ${reconcile.code}: ${reconcile.stdout.trim().replace(/\s+/g, ' ').slice(0, 600)}${reconcile.stderr.trim().slice(0, 300)}`,
    });
    const steadyOrder = receivedOrder(steady);
    const flakyOrder = receivedOrder(flaky);
    const delivered = await eventsDelivered(url, merchant.id, steadyOrder.eventIds);
    invariants.push({
      name: 'every event delivered at least once to a live endpoint',
      held: delivered.missing.length === 0,
      detail: `${delivered.total} events; steady endpoint missing ${delivered.missing.length}${
        delivered.missing.length ? ` (${delivered.missing.slice(0, 5).join(', ')})` : ''
      }; flaky endpoint got ${flakyOrder.eventIds.size} of them in ${flakyOrder.deliveries} requests`,
    });
    // Deliveries run in parallel and retries reorder (docs/events-and-webhooks.md): a receiver
    // orders by `sequence`. Held: each object's events are 1..n with no gap or repeat, and the
    // steady receiver got every one, so applying by sequence reaches the latest state. Arrivals
    // out of order are counted for the report.
    const gaps = await sequenceGaps(url, merchant.id);
    invariants.push({
      name: 'events in sequence order per object (1..n, none missing, applied by sequence)',
      held: gaps.length === 0 && delivered.missing.length === 0,
      detail: `${gaps.length} objects with a gap or repeat${gaps.length ? ` ${JSON.stringify(gaps.slice(0, 5))}` : ''}; arrived out of order (parallel deliveries): steady endpoint ${steadyOrder.outOfOrder.length} objects${
        steadyOrder.outOfOrder.length
          ? ` e.g. ${JSON.stringify(steadyOrder.outOfOrder.slice(0, 3))}`
          : ''
      }, flaky endpoint ${flakyOrder.outOfOrder.length}`,
    });
    invariants.push(serverErrors(client.answers, nemesis.postgresDown));
    // RSS is reported only: V8 grows its heap lazily and returns pages late, so RSS climbs for
    // minutes and stays high without a leak. The live heap after a forced GC is judged.
    const slopes = memory.slopes(Math.min(120_000, (minutes * 60_000) / 4));
    const heapSlopes = heap.judge();
    const judgedHeaps = Object.entries(heapSlopes).filter(([, h]) => h.judged);
    const rising = judgedHeaps.filter(
      ([, h]) => (h.slopeMbPerMin ?? 0) > HEAP_SLOPE_LIMIT_MB_PER_MIN,
    );
    invariants.push({
      name: `heap after GC flat after a ${HEAP_WARM_UP_MS / 60_000}-minute warm-up (<= ${HEAP_SLOPE_LIMIT_MB_PER_MIN} MB/min)`,
      held: rising.length === 0,
      detail: `${judgedHeaps.length ? '' : 'not judged: too few samples after the warm-up; '}slopes MB/min: ${
        Object.entries(heapSlopes)
          .map(
            ([name, h]) =>
              `${name} ${h.judged ? h.slopeMbPerMin : `not judged (${h.why})`}, ${h.fromMb} -> ${h.toMb} MB`,
          )
          .join('; ') || 'no samples'
      }; RSS (not judged) ${Object.entries(slopes)
        .map(([name, m]) => `${name} ${m.firstMb} -> ${m.toMb} MB`)
        .join(', ')}`,
    });
    if (!drained.drained)
      invariants.push({
        name: 'drained within 10 minutes',
        held: false,
        detail: JSON.stringify(drained.open),
      });
    const notStruck = nemesis.kindsNotYetStruck;
    invariants.push({
      name: 'every fault injected and recovered from',
      held: !nemesisError && (!everyFault || notStruck.length === 0),
      detail: nemesisError
        ? `the nemesis failed: ${nemesisError.message.slice(0, 400)}`
        : `${nemesis.faults.length} faults, each target whole again${
            notStruck.length ? `; not drawn in this run: ${notStruck.join(', ')}` : ''
          }`,
    });

    const statuses = await query<{ what: string; status: string; n: number }>(
      url,
      `SELECT 'session' AS what, status, count(*)::int AS n FROM checkout_sessions WHERE merchant_id = $1 GROUP BY 2
       UNION ALL SELECT 'payout', status, count(*)::int FROM payouts WHERE merchant_id = $1 AND refund_id IS NULL GROUP BY 2
       UNION ALL SELECT 'refund', status, count(*)::int FROM refunds WHERE merchant_id = $1 GROUP BY 2
       UNION ALL SELECT 'sweep', status, count(*)::int FROM sweeps GROUP BY 2`,
      [merchant.id],
    );
    const byKind: Record<string, number> = {};
    for (const session of load.sessions) {
      const key = `${session.network} ${session.kind}`;
      byKind[key] = (byKind[key] ?? 0) + 1;
    }
    const passed = invariants.every((invariant) => invariant.held) && violations.length === 0;
    const report: SoakReport = {
      seed: random.seed,
      minutes,
      startedAt: new Date(started).toISOString(),
      durationSeconds: {
        total: seconds(),
        setup: setupSeconds,
        load: loadSeconds,
        drain: drainSeconds,
        checks: seconds(checksStart),
      },
      boot: {
        ...cluster.boot,
        'operator CLI build (beside the boot and load, awaited at the checks)': cliSeconds,
        'checks: waiting for the CLI build': cliWaitSeconds,
      },
      load: {
        'new steps (the load)': minutes * 60,
        'steps under way ended (after the load)': stepsEndedSeconds - minutes * 60,
        'faults after the load (kinds not drawn during it), nemesis stopped': Math.max(
          0,
          loadSeconds - minutes * 60,
        ),
      },
      drain: { ...drained.steps, 'in-process reconciliations': drained.reconcileTries },
      passed,
      faults: nemesis.faults.map((fault) => ({
        ...fault,
        at: new Date(fault.startedAt).toISOString(),
        offsetSeconds: Math.round((fault.startedAt - loadStart) / 1000),
      })),
      invariants,
      violationsDuringRun: violations,
      figures: {
        sessions: load.sessions.length,
        sessionsByKind: byKind,
        transfers: load.sessions.reduce((sum, session) => sum + session.sent.length, 0),
        payoutsCreated: load.payouts.length,
        payoutsCreatedOnTron: load.payouts.filter((payout) => payout.network === 'TRON').length,
        reorgedTransfers: load.sessions.flatMap((session) =>
          session.sent
            .filter((sent) => sent.reorg)
            .map((sent) => ({ session: session.id, ...sent })),
        ),
        refundsCreated: load.sessions.filter((session) => session.refundId).length,
        statuses: Object.fromEntries(statuses.map((row) => [`${row.what} ${row.status}`, row.n])),
        answers: client.answers.length,
        answersByStatus: client.answers.reduce<Record<string, number>>((counts, answer) => {
          counts[answer.status] = (counts[answer.status] ?? 0) + 1;
          return counts;
        }, {}),
        connectionErrors: client.connectionErrors,
        loadStepFailures: load.failures.length,
        loadStepFailureSamples: load.failures.slice(0, 10),
        events: delivered.total,
        deliveries: { steady: steadyOrder.deliveries, flaky: flakyOrder.deliveries },
        faultsByKind: nemesis.faults.reduce<Record<string, number>>((counts, fault) => {
          counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
          return counts;
        }, {}),
        buildWarnings: cluster.buildWarnings,
        workerBoots: Object.fromEntries(cluster.workers.map((w) => [w.name, w.process.boots])),
      },
      memory: { heapAfterGc: heapSlopes, rss: slopes },
      logs: Object.fromEntries(
        cluster.processes.map((service) => [service.name, relative(resultsDir, service.logFile)]),
      ),
    };
    writeReport(resultsDir, report);
    for (const invariant of invariants)
      log(
        `${invariant.held ? 'held' : 'FAILED'}: ${invariant.name} (${invariant.detail.slice(0, 300)})`,
      );
    log(
      `chaos soak ${passed ? 'passed' : 'FAILED'} (seed ${random.seed}) in ${seconds()} s; report in ${resultsDir}/report.md`,
    );
    // CI keeps its output, not the results folder: a failure shows the whole report there.
    if (!passed) process.stdout.write(readFileSync(join(resultsDir, 'report.md'), 'utf8'));
    const failed = invariants.filter((invariant) => !invariant.held).length;
    closingLine(invariants.length - failed, failed + violations.length);
    return passed ? 0 : 1;
  } finally {
    stopFlaky();
    memory.stop();
    heap.stop();
    await cluster.stop();
    await Promise.allSettled([steady.stop(), flaky.stop()]);
    (await cli.catch(() => undefined))?.remove();
  }
}

// Past its deadline the run is given up (CI has a time budget): its services stopped, exit 3.
if (deadlineMinutes !== undefined)
  setTimeout(() => {
    log(`chaos soak given up: past its deadline of ${deadlineMinutes} minutes`);
    closingLine(0, 1);
    void Promise.resolve(runningCluster?.stop()).finally(() => process.exit(3));
  }, deadlineMinutes * 60_000).unref();

// Ctrl-C or a CI job's timeout: the services go with the run (the processes outlive it otherwise,
// holding their ports and a private PostgreSQL).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`chaos soak stopped by ${signal}`);
    closingLine(0, 1);
    void Promise.resolve(runningCluster?.stop()).finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    // fetch's "fetch failed" says why only in its cause.
    const cause = (error as Error & { cause?: unknown }).cause;
    log(
      `chaos soak aborted: ${error.stack ?? error.message}${cause ? `\ncause: ${String(cause)}` : ''}`,
    );
    closingLine(0, 1);
    process.exit(2);
  },
);
