// npm run bench:data-scale [-- options]: write, list and retention latency with 10 M events,
// 30 M webhook attempts and 10 M sessions, in a database of its own, dropped at the end.
// Figures and the decisions they support: docs/performance.md ("Data at scale").
import { statfsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { EVENT_TYPES } from '../../libs/events/src/event-types';
import { dropDatabase, migrateDatabase } from '../../libs/database/src/migrate';
import { describeMachine, gitDescription } from '../kit/report';
import { RESULTS_DIR, ROOT } from '../kit/settings';
import { seedPayouts, seedSessions } from '../lists/seed';
import { fullMachineLine, quietness, quietnessWarnings } from '../kit/report';
import { Measurements, PlanFigure, Sizes, Timing } from './measure';
import {
  ATTEMPTS_PER_DELIVERY,
  DATABASE,
  DATABASE_URL,
  MERCHANT_ID,
  buildIndexes,
  dropSecondaryIndexes,
  restartIdentities,
  seedEventsSlice,
  seedMerchant,
} from './seed';

const SLICE = 1_000_000; // rows of a table per INSERT statement
const PAYOUTS = 10_000; // what the list scenarios look for; payouts are not the subject here
const TARGET_P99_MS = 10;
const WARMUP = 100;
const RETENTION_BATCH = 1000; // RETENTION_BATCH_SIZE's default
const RETENTION_BATCHES = 30;
// The seeded database must stay well inside the disk (10 M + 30 M + 10 M rows: about 20 GB).
const MIN_FREE_BYTES = 35 * 2 ** 30;
const SEEDED_TABLES = [
  'checkout_sessions',
  'session_transactions',
  'events',
  'webhook_deliveries',
  'webhook_attempts',
];

const USAGE = `Usage: npm run bench:data-scale [-- options]
  --events N     events, one delivery each, ${ATTEMPTS_PER_DELIVERY} attempts a delivery (default 10000000)
  --sessions N   checkout sessions of the merchant (default 10000000)
  --samples N    measured calls per write or list (default 300)
  --first-stage-every N  the first stage seeds one row in N (default 100): the small table the
                 figures at full size are compared with
  --keep         keep the database at the end (default: dropped)`;

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000000' },
    sessions: { type: 'string', default: '10000000' },
    samples: { type: 'string', default: '300' },
    'first-stage-every': { type: 'string', default: '100' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const EVENTS = wholeNumber(args.events, 'events');
const SESSIONS = wholeNumber(args.sessions, 'sessions');
const SAMPLES = wholeNumber(args.samples, 'samples');
const EVERY = wholeNumber(args['first-stage-every'], 'first-stage-every');
const FIRST_SESSIONS = Math.max(1000, Math.floor(SESSIONS / EVERY));

function wholeNumber(value: string | undefined, name: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    console.error(`--${name} must be a whole number >= 1.\n\n${USAGE}`);
    process.exit(2);
  }
  return number;
}

const startedAt = Date.now();
function step(message: string): void {
  console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(7)}s] ${message}`);
}

async function timedStep<T>(message: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work();
  step(`${message}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

interface Stage {
  name: string;
  sizes: Sizes;
  database_bytes: number;
  seconds_to_seed: number;
  timings: Timing[];
  plans: PlanFigure[];
}

async function measureStage(name: string, seededIn: number): Promise<Stage> {
  const measure = new Measurements(DATABASE_URL, WARMUP, SAMPLES);
  await measure.connect();
  try {
    const sizes = await measure.sizes();
    const bytes = await measure.databaseBytes();
    step(
      `${name}: ${sizes.events.toLocaleString('en-US')} events, ` +
        `${sizes.attempts.toLocaleString('en-US')} attempts, ` +
        `${sizes.sessions.toLocaleString('en-US')} sessions, ${gib(bytes)} GiB`,
    );
    const plans = await measure.plans();
    const timings = [
      ...(await measure.lists()),
      ...(await measure.writes()),
      // Last: it deletes for real.
      ...(await measure.retention(RETENTION_BATCH, RETENTION_BATCHES)),
    ];
    for (const timing of timings)
      step(`  ${timing.name}: p50 ${timing.p50_ms}, p99 ${timing.p99_ms} ms`);
    return { name, sizes, database_bytes: bytes, seconds_to_seed: seededIn, timings, plans };
  } finally {
    await measure.end();
  }
}

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);

async function seedEvents(db: Client, newest: Date, part: 'in' | 'out'): Promise<void> {
  for (let first = 1; first <= EVENTS; first += SLICE) {
    const last = Math.min(first + SLICE - 1, EVENTS);
    await seedEventsSlice(db, {
      first,
      last,
      total: EVENTS,
      newest,
      types: EVENT_TYPES,
      sample: { every: EVERY, part },
    });
    step(
      `  events ${part === 'in' ? `1 in ${EVERY}` : 'the rest'}: to n = ${last.toLocaleString('en-US')}`,
    );
  }
}

async function seedSessionRange(db: Client, newest: Date, from: number, to: number) {
  for (let first = from; first <= to; first += SLICE) {
    const count = Math.min(SLICE, to - first + 1);
    await seedSessions(db, {
      merchantId: MERCHANT_ID,
      newest,
      idPrefix: 'cs_bench_',
      first,
      count,
    });
    step(`  sessions: to ${(first + count - 1).toLocaleString('en-US')}`);
  }
}

/** Stage one: one row in EVERY, the indexes maintained as the application maintains them. */
async function seedFirstStage(db: Client, newest: Date): Promise<void> {
  await seedMerchant(db);
  await seedSessionRange(db, newest, 1, FIRST_SESSIONS);
  await seedPayouts(db, { merchantId: MERCHANT_ID, newest, idPrefix: 'po_bench_', count: PAYOUTS });
  await seedEvents(db, newest, 'in');
  await restartIdentities(db);
  await timedStep('VACUUM ANALYZE', () => db.query('VACUUM ANALYZE'));
}

/**
 * Stage two: the rest, in bulk. Secondary indexes are dropped and built again after, and foreign
 * keys are not checked row by row (session_replication_role = replica: the rows are consistent
 * by construction); primary keys and unique constraints stay and are checked.
 */
async function seedSecondStage(db: Client, newest: Date): Promise<void> {
  const indexes = await dropSecondaryIndexes(db, SEEDED_TABLES);
  step(`dropped ${indexes.length} secondary indexes for the bulk load`);
  await db.query(`SET session_replication_role = replica`);
  await seedSessionRange(db, newest, FIRST_SESSIONS + 1, SESSIONS);
  await seedEvents(db, newest, 'out');
  await db.query(`RESET session_replication_role`);
  await restartIdentities(db);
  await buildIndexes(db, indexes, step);
  await timedStep('VACUUM ANALYZE', () => db.query('VACUUM ANALYZE'));
}

function markdown(stages: Stage[]): string {
  const [small, large] = stages;
  const header = [
    `| query | p50 ms, ${label(small)} | p99 ms, ${label(small)} | ` +
      `p50 ms, ${label(large)} | p99 ms, ${label(large)} | max ms, ${label(large)} |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const rows = large.timings.map((timing, index) => {
    const before = small.timings[index];
    const over =
      timing.kind === 'list' &&
      timing.p99_ms > TARGET_P99_MS &&
      !timing.name.includes('include_total');
    const perBatch =
      timing.rows_per_batch === undefined ? '' : ` (${timing.rows_per_batch} rows a batch)`;
    return (
      `| ${timing.name}${perBatch} | ${before.p50_ms.toFixed(2)} | ${before.p99_ms.toFixed(2)} | ` +
      `${timing.p50_ms.toFixed(2)} | ${timing.p99_ms.toFixed(2)}${over ? ' **over**' : ''} | ` +
      `${timing.max_ms.toFixed(2)} |`
    );
  });
  return [...header, ...rows].join('\n');
}

/** Pages each list touched at both sizes: flat here is flat on any machine. */
function planTable(stages: Stage[]): string {
  const [small, large] = stages;
  const rows = large.plans.map((plan, index) => {
    const before = small.plans[index];
    return (
      `| ${plan.name} | ${before.buffers} | ${before.execution_ms.toFixed(2)} | ` +
      `${plan.buffers} | ${plan.execution_ms.toFixed(2)} |`
    );
  });
  return [
    `| list | pages, ${label(small)} | executed ms | pages, ${label(large)} | executed ms |`,
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

function label(stage: Stage): string {
  const millions = (n: number) =>
    n >= 1_000_000
      ? `${(n / 1_000_000).toFixed(n % 1_000_000 ? 1 : 0)} M`
      : `${Math.round(n / 1000)} k`;
  return `${millions(stage.sizes.events)} ev / ${millions(stage.sizes.attempts)} att / ${millions(stage.sizes.sessions)} cs`;
}

async function main(): Promise<void> {
  const free = statfsSync(ROOT);
  const freeBytes = free.bavail * free.bsize;
  const fullSize = EVENTS >= 5_000_000 || SESSIONS >= 5_000_000;
  if (fullSize && freeBytes < MIN_FREE_BYTES) {
    throw new Error(
      `${gib(freeBytes)} GiB free: the seeded database needs about 20 GiB and its WAL`,
    );
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, '-');
  const base = join(RESULTS_DIR, `data-scale-${stamp}`);
  const quietAtStart = quietness();
  step(`resetting ${DATABASE} and migrating it`);
  await dropDatabase(DATABASE_URL);
  await migrateDatabase(DATABASE_URL);
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const stages: Stage[] = [];
  try {
    const newest = new Date();
    let started = Date.now();
    step(`stage 1: one row in ${EVERY}, indexes maintained row by row`);
    await seedFirstStage(db, newest);
    stages.push(await measureStage('stage 1', (Date.now() - started) / 1000));
    started = Date.now();
    step(
      `stage 2: the rest (${EVENTS.toLocaleString('en-US')} events, ${SESSIONS.toLocaleString('en-US')} sessions in all)`,
    );
    await seedSecondStage(db, newest);
    stages.push(await measureStage('stage 2', (Date.now() - started) / 1000));
  } finally {
    await db.end();
    if (!args.keep) {
      step(`dropping ${DATABASE} (--keep keeps it)`);
      await dropDatabase(DATABASE_URL);
    }
  }
  const quietAtEnd = quietness();
  const version = await serverVersion();
  const machine = describeMachine(version, 'no anvil');
  const warnings = [
    ...quietnessWarnings(quietAtStart, 'start'),
    ...quietnessWarnings(quietAtEnd, 'end'),
  ];
  const table = `${markdown(stages)}\n\n${planTable(stages)}`;
  const summary = [
    `${fullMachineLine(machine, quietAtStart)}`,
    ...warnings.map((warning) => `WARNING: ${warning}`),
    `Database ${gib(stages[1].database_bytes)} GiB at full size; stage 2 seeded in ` +
      `${Math.round(stages[1].seconds_to_seed)} s. ${SAMPLES} calls per write and list after ` +
      `${WARMUP} discarded; ${RETENTION_BATCHES} retention batches; list target p99 <= ${TARGET_P99_MS} ms.`,
  ];
  console.log(`\n${summary.join('\n')}\n\n${table}\n`);
  writeFileSync(`${base}.md`, `${summary.join('\n\n')}\n\n${table}\n`);
  writeFileSync(
    `${base}.json`,
    JSON.stringify(
      {
        git: gitDescription(),
        machine,
        quietness: { start: quietAtStart, end: quietAtEnd },
        warnings,
        stages,
      },
      null,
      2,
    ),
  );
  console.log(`Report: ${relative(ROOT, `${base}.md`)} and .json`);
  const over = stages[1].timings.filter(
    (timing) =>
      timing.kind === 'list' &&
      timing.p99_ms > TARGET_P99_MS &&
      !timing.name.includes('include_total'),
  );
  if (over.length) {
    console.log(`Over the list target: ${over.map((timing) => timing.name).join(', ')}`);
    process.exitCode = 1;
  }
}

async function serverVersion(): Promise<string> {
  const db = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await db.connect();
  try {
    return (await db.query('SHOW server_version')).rows[0].server_version as string;
  } finally {
    await db.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
