// npm run bench:api [-- options]: the built API against a bare express + pg baseline, on loopback,
// in one run. See bench/README.md for what is measured and how to read the ratios.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const autocannon = require('autocannon');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '../..');
const RESULTS_DIR = path.join(ROOT, 'bench/results');
const DATABASE = 'payments_bench';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
const ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
// The tuned setup only: the default setup leaves both to the service's own defaults.
const TUNED_DATABASE_POOL_SIZE = 20;
const TUNED_LOG_LEVEL = 'warn';
const CLI_MAIN = 'dist/apps/cli/apps/cli/src/main.js';
const API_MAIN = 'dist/apps/api/apps/api/src/main.js';
// The API's node flags, as production starts it (this checkout's, also with --app-dir).
const API_NODE_FLAGS = require('../../apps/api/node-flags.json').flags;
const WORKER_MAIN = 'dist/apps/worker/apps/worker/src/main.js';
// The service's default pool size (PAY_ADDRESS_POOL_TARGET); the worker fills it on start.
const DEFAULT_POOL_TARGET = 60000;
const POOL_FILL_TIMEOUT_MS = 600_000;
const BARE_MAIN = path.join(__dirname, 'bare-server.js');
// Public test account keys: no development wallet is generated, no real funds are involved.
const HD_EVM_XPUB =
  'xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP';
const HD_TRON_XPUB =
  'xpub6BuRy7ZmkGfP2RWhoor1kWB1w9DvrtmJbFBvnC1bQ4SB5NbCHTyQYCJSXZtxDbFyHTmC7wkU2he3nYYdpZ3Vf6qUAkXSnL6RPif4BDtDEKr';
const CREATE_BODY = JSON.stringify({
  pricing_amount: '10.00',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
});
// The pool must never run dry during a creation phase (the API would then derive on the request
// path and the figure would measure something else). The warm-up is covered for this rate; the
// measured phase is sized from the warm-up's rate times this margin, and checked afterwards.
const MAX_EXPECTED_CREATE_RATE = 4000;
const POOL_MARGIN = 1.5;
const REQUEST_TIMEOUT_S = 5;
// CPU used by processes outside the benchmark during a measured phase, above which it is flagged.
const OTHER_LOAD_WARNING_CORES = 0.2;

const USAGE = `Usage: npm run bench:api [-- options]
  --setup default|tuned default: API and worker as the README starts them (default logging and
                        pool, the worker filling the pay-address pool); tuned: the API alone,
                        LOG_LEVEL=warn, NODE_ENV=production, pool pre-filled by the CLI
  --no-build            use dist/ as it is (default: npm run build first)
  --duration S          measured seconds per scenario (default 20, a burst; tuned: 8)
  --warmup S            discarded warm-up seconds per scenario (default 2)
  --connections N       autocannon connections (default 32)
  --seed N              sessions of the merchant before the read scenarios (default 5000)
  --only A,B            run only these scenarios (names as in the table)
  --attempts N          re-measure a scenario disturbed by other processes up to N times (3)
  --cpu-prof            run the API under node --cpu-prof; the profile lands in bench/results/
  --app-dir DIR         build and run the app in DIR (a checkout or copy with node_modules)
                        instead of this repository; results still land in bench/results/`;

const { values: args } = parseArgs({
  options: {
    setup: { type: 'string', default: 'default' },
    'no-build': { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    seed: { type: 'string', default: '5000' },
    only: { type: 'string' },
    attempts: { type: 'string', default: '3' },
    'cpu-prof': { type: 'boolean', default: false },
    'app-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!['default', 'tuned'].includes(args.setup)) {
  console.error(`--setup must be default or tuned.\n\n${USAGE}`);
  process.exit(2);
}
const TUNED = args.setup === 'tuned';
// Where the app under test is built and run from (this repository unless --app-dir).
const APP_ROOT = path.resolve(args['app-dir'] ?? ROOT);
const settings = {
  setup: args.setup,
  connections: positiveInteger(args.connections, 'connections'),
  warmup_s: positiveInteger(args.warmup, 'warmup'),
  duration_s: positiveInteger(args.duration ?? (TUNED ? '8' : '20'), 'duration'),
  seed_sessions: positiveInteger(args.seed, 'seed'),
  attempts: positiveInteger(args.attempts, 'attempts'),
  database_pool_size: TUNED ? TUNED_DATABASE_POOL_SIZE : 'service default',
  log_level: TUNED ? TUNED_LOG_LEVEL : 'service default',
  node_env: TUNED ? 'production' : 'unset',
  worker: !TUNED,
  pipelining: 1,
};

function positiveInteger(value, name) {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    console.error(`--${name} must be a whole number >= 1.\n\n${USAGE}`);
    process.exit(2);
  }
  return number;
}

// Every scenario: one route, one request shape. Both servers get identical requests (the bare one
// ignores the Authorization and Idempotency-Key headers), so the client side costs the same.
const SCENARIOS = [
  {
    name: 'api-get',
    label: 'GET /v1/checkout/sessions/{id}',
    server: 'api',
    method: 'GET',
    path: (context) => `/v1/checkout/sessions/${context.sessionId}`,
    baseline: 'bare-get',
  },
  {
    name: 'bare-get',
    label: 'bare GET by primary key',
    server: 'bare',
    method: 'GET',
    path: (context) => `/v1/checkout/sessions/${context.sessionId}`,
  },
  {
    name: 'api-list',
    label: 'GET /v1/checkout/sessions?page_size=20',
    server: 'api',
    method: 'GET',
    path: () => '/v1/checkout/sessions?page_size=20',
  },
  {
    name: 'api-create',
    label: 'POST /v1/checkout/sessions + Idempotency-Key',
    server: 'api',
    method: 'POST',
    path: () => '/v1/checkout/sessions',
    uniqueKey: true,
    creates: true,
    baseline: 'bare-insert',
    headline: true,
  },
  {
    name: 'api-create-nokey',
    label: 'POST /v1/checkout/sessions, no key',
    server: 'api',
    method: 'POST',
    path: () => '/v1/checkout/sessions',
    uniqueKey: false,
    creates: true,
    baseline: 'bare-insert',
  },
  {
    name: 'bare-insert',
    label: 'bare INSERT (express 5 + pg)',
    server: 'bare',
    method: 'POST',
    path: () => '/v1/checkout/sessions',
    uniqueKey: true,
    creates: true,
  },
];

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked and stopped on exit, error or Ctrl-C.

const children = new Set();
let stopping = false;

function startNode(name, nodeArgs, env, logFile) {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, nodeArgs, {
    cwd: APP_ROOT,
    env,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  child.benchName = name;
  child.logFile = logFile;
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (!stopping) console.error(`[bench] ${name} exited unexpectedly (${signal ?? code})`);
      resolve({ code, signal });
    });
  });
  return child;
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await child.exited;
  clearTimeout(timer);
}

async function stopAll() {
  stopping = true;
  await Promise.all([...children].map(stopChild));
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n[bench] ${signal}: stopping child processes`);
    stopAll().finally(() => process.exit(1));
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

const startedAt = Date.now();
function step(message) {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1).padStart(6);
  console.log(`[bench ${seconds}s] ${message}`);
}

function appEnv(extra = {}) {
  const env = { ...process.env };
  // The default setup is the service's own configuration: nothing inherited may tune it.
  for (const name of ['NODE_ENV', 'LOG_LEVEL', 'DATABASE_POOL_SIZE', 'PAY_ADDRESS_POOL_TARGET']) {
    delete env[name];
  }
  return {
    ...env,
    APP_ENV: 'sandbox',
    ...(TUNED
      ? {
          NODE_ENV: 'production',
          LOG_LEVEL: TUNED_LOG_LEVEL,
          DATABASE_POOL_SIZE: String(TUNED_DATABASE_POOL_SIZE),
        }
      : {}),
    // Not the default in either setup: one merchant sends the whole load, far above a merchant's
    // default limit of 100 requests a second (docs/rate-limits.md).
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    DATABASE_URL,
    HD_EVM_XPUB,
    HD_TRON_XPUB,
    ...extra,
  };
}

function runCli(cliArgs) {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...cliArgs], {
    cwd: APP_ROOT,
    env: appEnv(),
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`cli ${cliArgs.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function build() {
  if (args['no-build']) {
    for (const main of [API_MAIN, CLI_MAIN]) {
      if (!fs.existsSync(path.join(APP_ROOT, main)))
        throw new Error(`--no-build, but ${main} is missing.`);
    }
    step('--no-build: using dist/ as it is');
    return;
  }
  step(`npm run build${APP_ROOT === ROOT ? '' : ` in ${APP_ROOT}`}`);
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: APP_ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status}).`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(child, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${child.benchName} exited during start-up; see ${child.logFile}`);
    }
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.benchName} not healthy after ${timeoutMs} ms; see ${child.logFile}`);
}

function gitDescription() {
  if (APP_ROOT !== ROOT) return `app from ${APP_ROOT}`;
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  return `${head.stdout.trim()}${status.stdout.trim() ? ' (uncommitted changes)' : ''}`;
}

async function resetDatabase() {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  runCli(['db:migrate']);
}

/** Same starting conditions for every phase: no dead tuples, fresh statistics, no checkpoint due. */
async function settle(db) {
  await db.query('VACUUM ANALYZE');
  await db.query('CHECKPOINT');
}

async function count(db, sql) {
  const { rows } = await db.query(sql);
  return Number(rows[0].n);
}

const unclaimedAddresses = (db) =>
  count(db, `SELECT count(*) AS n FROM pay_addresses WHERE claimed_at IS NULL`);

/** Default setup: the worker fills the pool on start, as it does in production. */
async function waitForWorkerPool(db, worker) {
  const started = Date.now();
  const full = async () =>
    (await count(
      db,
      `SELECT min(n) AS n FROM (SELECT count(*) AS n FROM pay_addresses
        WHERE claimed_at IS NULL GROUP BY chain_family) counts`,
    )) >= DEFAULT_POOL_TARGET;
  while (!(await full())) {
    if (worker.exitCode !== null) throw new Error(`the worker exited; see ${worker.logFile}`);
    if (Date.now() - started > POOL_FILL_TIMEOUT_MS) {
      throw new Error(`the worker did not fill the pool in ${POOL_FILL_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  step(`  the worker filled the pool to ${DEFAULT_POOL_TARGET} per chain family (${seconds} s)`);
}

async function ensurePool(db, wanted) {
  const before = await unclaimedAddresses(db);
  if (before >= wanted) return;
  const started = Date.now();
  runCli(['pool:fill', '--count', String(wanted), '--family', 'TRON']);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  step(
    `  pool topped up ${before} -> ${await unclaimedAddresses(db)} TRON addresses (${seconds} s)`,
  );
}

async function seedSessions(db, templateId, total) {
  // Copies of the API-created session with their own ids, addresses and creation times, so the
  // merchant's list has `total` rows whatever the creation throughput turns out to be.
  await db.query(
    `INSERT INTO checkout_sessions (id, merchant_id, livemode, status, amount, currency, network,
       chain_family, currency_contract, pay_address, key_fingerprint, derivation_index,
       pricing_amount, pricing_currency, exchange_rate, created_at, expires_at, fee_percent,
       fee_fixed)
     SELECT 'cs_seed' || lpad(g::text, 18, '0'), t.merchant_id, t.livemode, t.status, t.amount,
            t.currency, t.network, t.chain_family, t.currency_contract, 'Tseed' || g,
            t.key_fingerprint, 1000000000 + g, t.pricing_amount, t.pricing_currency,
            t.exchange_rate, t.created_at - make_interval(secs => g),
            t.expires_at - make_interval(secs => g), t.fee_percent, t.fee_fixed
       FROM checkout_sessions t, generate_series(1, $2::int) g
      WHERE t.id = $1`,
    [templateId, total - 1],
  );
}

// ---------------------------------------------------------------------------------------------
// Load

let idempotencyCounter = 0;
const idempotencyPrefix = `bench-${process.pid}-${Date.now().toString(36)}`;
function withUniqueKey(request) {
  request.headers['idempotency-key'] = `${idempotencyPrefix}-${++idempotencyCounter}`;
  return request;
}

function load(scenario, context, seconds) {
  const options = {
    url: context.urls[scenario.server],
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
    // A request still unanswered after this is an error (the run then fails).
    timeout: REQUEST_TIMEOUT_S,
    method: scenario.method,
    headers: {
      authorization: `Bearer ${context.apiKey}`,
      ...(scenario.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    },
    body: scenario.method === 'POST' ? CREATE_BODY : undefined,
    requests: [
      {
        path: scenario.path(context),
        ...(scenario.uniqueKey ? { setupRequest: withUniqueKey } : {}),
      },
    ],
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function summarize(result) {
  return {
    requests_per_second: Math.round(result.requests.average),
    requests: result.requests.total,
    sent: result.requests.sent,
    duration_s: result.duration,
    latency_ms: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    status_2xx: result['2xx'],
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]),
    ),
  };
}

// CPU time per component (Linux /proc; null elsewhere): with everything on one small machine,
// CPU per request says where the time goes better than latency does.
const CLOCK_TICKS_PER_SECOND = 100;

function processCpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU ms of every running postgres process, by pid (backends come and go with the pools). */
function postgresCpuMs() {
  const byPid = {};
  for (const entry of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const ms = processCpuMs(entry);
    if (ms !== null) byPid[entry] = ms;
  }
  return Object.keys(byPid).length ? byPid : null;
}

/** Machine-wide CPU ms from /proc/stat: process time, and interrupt time (loopback traffic). */
function machineCpuMs() {
  try {
    const [user, nice, system, , , irq, softirq, steal] = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const ms = (ticks) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
    return { processes: ms(user + nice + system), interrupts: ms(irq + softirq), steal: ms(steal) };
  } catch {
    return null;
  }
}

function cpuSnapshot(serverPid, workerPid) {
  const client = process.cpuUsage();
  return {
    server: processCpuMs(serverPid),
    worker: workerPid ? processCpuMs(workerPid) : null,
    postgres: postgresCpuMs(),
    client: (client.user + client.system) / 1000,
    machine: machineCpuMs(),
  };
}

function cpuDelta(before, after, requests, seconds) {
  const delta = {};
  for (const part of ['server', 'worker', 'client']) {
    delta[part] =
      before[part] === null || after[part] === null ? null : Math.round(after[part] - before[part]);
  }
  // Processes that exited during the phase are lost (idle pool connections closing: ~0 ms).
  delta.postgres =
    before.postgres === null || after.postgres === null
      ? null
      : Math.round(
          Object.entries(after.postgres).reduce(
            (sum, [pid, ms]) => sum + ms - (before.postgres[pid] ?? 0),
            0,
          ),
        );
  const known = Object.values(delta).filter((value) => value !== null);
  const ours = known.reduce((sum, ms) => sum + ms, 0);
  const cores = (ms) => Math.round((ms / (seconds * 1000)) * 100) / 100;
  // Whatever else ran on the machine meanwhile (other people's builds and tests) competes for
  // the same cores: more than ~0.2 of a core makes the phase's figures doubtful.
  const machine =
    before.machine && after.machine
      ? {
          other_cores: cores(
            Math.max(after.machine.processes - before.machine.processes - ours, 0),
          ),
          interrupt_cores: cores(after.machine.interrupts - before.machine.interrupts),
          steal_cores: cores(after.machine.steal - before.machine.steal),
        }
      : null;
  const perRequest = (ms) => (ms === null || !requests ? null : Math.round((ms * 1000) / requests));
  return {
    ms: delta,
    us_per_request: {
      server: perRequest(delta.server),
      worker: perRequest(delta.worker),
      postgres: perRequest(delta.postgres),
      client: perRequest(delta.client),
    },
    cores_busy: cores(ours),
    machine,
  };
}

/** Both counts from one snapshot, once requests still in flight at the stop have finished. */
async function countRows(db) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { rows } = await db.query(`SELECT (SELECT count(*) FROM checkout_sessions) AS sessions,
    (SELECT count(*) FROM idempotency_keys) AS keys`);
  return { sessions: Number(rows[0].sessions), keys: Number(rows[0].keys) };
}

async function runScenario(scenario, context, failures, warnings) {
  const { db } = context;
  await settle(db);
  const before = scenario.creates ? await countRows(db) : null;
  const apiCreates = scenario.creates && scenario.server === 'api';
  if (apiCreates) {
    await ensurePool(db, Math.ceil(MAX_EXPECTED_CREATE_RATE * settings.warmup_s * POOL_MARGIN));
  }

  step(`${scenario.name}: warm-up ${settings.warmup_s} s (discarded)`);
  const warmup = summarize(await load(scenario, context, settings.warmup_s));
  const warmupRate = warmup.requests / Math.max(warmup.duration_s, 0.1);
  // On a shared machine another process may steal the cores mid-phase: measure again (up to
  // --attempts times) and keep the quietest attempt; every attempt is in the JSON.
  const attempts = [];
  const serverPid = context.pids[scenario.server];
  for (let attempt = 1; attempt <= settings.attempts; attempt++) {
    if (apiCreates) {
      // The warm-up can run slower than the measured phase; never plan for less than 3,000 req/s.
      const expectedRate = Math.max(
        warmupRate,
        ...attempts.map((a) => a.requests_per_second),
        3000,
      );
      await ensurePool(db, Math.ceil(expectedRate * settings.duration_s * POOL_MARGIN));
    }
    step(
      `${scenario.name}: measuring ${settings.duration_s} s${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
    );
    const workerPid = scenario.server === 'api' ? context.pids.worker : undefined;
    const cpuBefore = cpuSnapshot(serverPid, workerPid);
    const result = summarize(await load(scenario, context, settings.duration_s));
    result.cpu = cpuDelta(
      cpuBefore,
      cpuSnapshot(serverPid, workerPid),
      result.requests,
      result.duration_s,
    );
    attempts.push(result);
    const other = result.cpu.machine?.other_cores ?? 0;
    step(
      `${scenario.name}: ${result.requests_per_second} req/s, p50 ${result.latency_ms.p50} ms, ` +
        `p99 ${result.latency_ms.p99} ms, non-2xx ${result.non_2xx}, errors ${result.errors}` +
        (other > OTHER_LOAD_WARNING_CORES ? `; other processes busy ${other} cores` : ''),
    );
    if (other <= OTHER_LOAD_WARNING_CORES) break;
  }
  const otherCores = (result) => result.cpu.machine?.other_cores ?? 0;
  const measured = attempts.reduce((best, a) => (otherCores(a) < otherCores(best) ? a : best));

  const problems = [];
  if (warmup.non_2xx || warmup.errors) {
    problems.push(
      `warm-up: ${warmup.non_2xx} non-2xx (${JSON.stringify(warmup.status_codes)}), ` +
        `${warmup.errors} errors`,
    );
  }
  for (const a of [warmup, ...attempts]) {
    if (a.requests === 0) {
      problems.push(`no request was answered (${a.sent} sent): the server hangs`);
    }
  }
  for (const a of attempts) {
    if (a.non_2xx || a.errors || a.timeouts) {
      problems.push(
        `measured: ${a.non_2xx} non-2xx (${JSON.stringify(a.status_codes)}), ` +
          `${a.errors} errors, ${a.timeouts} timeouts`,
      );
    }
  }
  const checks = {};
  if (scenario.creates) {
    // Requests still in flight when autocannon stops may be committed without being counted.
    const answered = attempts.reduce((sum, a) => sum + a.status_2xx, warmup.status_2xx);
    const after = await countRows(db);
    const inserted = after.sessions - before.sessions;
    const keys = after.keys - before.keys;
    checks.sessions_inserted = inserted;
    checks.idempotency_keys_stored = keys;
    const slack = (1 + attempts.length) * settings.connections;
    if (inserted < answered || inserted > answered + slack) {
      problems.push(`${answered} answered 201 but ${inserted} sessions were inserted`);
    }
    if (scenario.server === 'api') {
      const expectedKeys = scenario.uniqueKey ? inserted : 0;
      if (keys !== expectedKeys) {
        problems.push(`${keys} idempotency keys stored for ${inserted} sessions`);
      }
      checks.pool_unclaimed_after = await unclaimedAddresses(db);
      if (checks.pool_unclaimed_after === 0) {
        problems.push('the pay-address pool ran dry: some requests derived on the request path');
      }
    }
  }
  for (const problem of problems) failures.push(`${scenario.name}: ${problem}`);
  const other = measured.cpu.machine?.other_cores ?? 0;
  if (other > OTHER_LOAD_WARNING_CORES) {
    warnings.push(
      `${scenario.name}: other processes used ${other.toFixed(2)} cores (quietest of ${attempts.length} attempts)`,
    );
  }
  return { label: scenario.label, server: scenario.server, warmup, measured, attempts, checks };
}

// ---------------------------------------------------------------------------------------------
// Report

function formatNumber(value) {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

function printTable(results, ratios) {
  const rows = [
    [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'errors',
      'vs bare',
      'CPU µs/req: server',
      'worker',
      'postgres',
      'client',
      'cores busy',
      'other',
    ],
  ];
  for (const [name, result] of Object.entries(results)) {
    const m = result.measured;
    const ratio = ratios[name];
    rows.push([
      name,
      formatNumber(m.requests_per_second),
      formatNumber(m.latency_ms.p50),
      formatNumber(m.latency_ms.p99),
      formatNumber(m.non_2xx),
      `${m.errors}${m.timeouts ? ` (${m.timeouts} timeouts)` : ''}`,
      ratio ? `${ratio.ratio.toFixed(2)} of ${ratio.baseline}` : '',
      formatNumber(m.cpu.us_per_request.server ?? '?'),
      formatNumber(m.cpu.us_per_request.worker ?? '-'),
      formatNumber(m.cpu.us_per_request.postgres ?? '?'),
      formatNumber(m.cpu.us_per_request.client ?? '?'),
      m.cpu.cores_busy.toFixed(2),
      m.cpu.machine ? m.cpu.machine.other_cores.toFixed(2) : '?',
    ]);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row) =>
    row.map((cell, column) =>
      column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]),
    );
  console.log('');
  console.log(line(rows[0]).join('  '));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows.slice(1)) console.log(line(row).join('  '));
  console.log('');
  for (const [name, result] of Object.entries(results)) {
    console.log(`  ${name.padEnd(widths[0])}  ${result.label}`);
  }
  console.log('');
}

function machineLine(machine) {
  return (
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gb} GB, ${machine.os}; ` +
    `Node ${machine.node}; PostgreSQL ${machine.postgres}`
  );
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const only = args.only ? new Set(args.only.split(',').map((name) => name.trim())) : null;
  const unknown = only ? [...only].filter((name) => !SCENARIOS.some((s) => s.name === name)) : [];
  if (unknown.length) throw new Error(`Unknown scenario(s): ${unknown.join(', ')}`);
  const scenarios = SCENARIOS.filter((scenario) => !only || only.has(scenario.name));

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const logs = { api: path.join(RESULTS_DIR, `api-${stamp}.api.log`) };
  logs.bare = path.join(RESULTS_DIR, `api-${stamp}.bare.log`);

  build();
  step(`database ${DATABASE}: drop, create, migrate`);
  await resetDatabase();
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const cpus = os.cpus();
  const machine = {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: (await db.query('SHOW server_version')).rows[0].server_version,
  };
  console.log(machineLine(machine));

  const merchant = runCli(['merchants:create', '--name', 'Bench']);
  step(`merchant ${merchant.merchant_id} created`);
  await ensurePool(db, 100);

  const [apiPort, barePort] = [await freePort(), await freePort()];
  const apiNodeArgs = [...API_NODE_FLAGS];
  let profileDir = null;
  if (args['cpu-prof']) {
    profileDir = path.join(RESULTS_DIR, `api-${stamp}-profile`);
    apiNodeArgs.push(
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
      '--require',
      path.join(__dirname, 'exit-on-sigterm.js'),
    );
  }
  step(
    TUNED
      ? `starting the API alone on :${apiPort} (tuned: LOG_LEVEL=${TUNED_LOG_LEVEL})`
      : `starting the API on :${apiPort} and one worker (default configuration and logging)`,
  );
  const api = startNode(
    'api',
    [...apiNodeArgs, API_MAIN],
    appEnv({ PORT: String(apiPort) }),
    logs.api,
  );
  const urls = { api: `http://127.0.0.1:${apiPort}`, bare: `http://127.0.0.1:${barePort}` };
  await waitForHealth(api, urls.api);
  let worker = null;
  if (!TUNED) {
    logs.worker = path.join(RESULTS_DIR, `api-${stamp}.worker.log`);
    // The worker's metrics stay on, on a port of its own: another benchmark's or a developer's
    // worker may hold the default 9464.
    const workerEnv = appEnv({ WORKER_METRICS_PORT: String(await freePort()) });
    worker = startNode('worker', [WORKER_MAIN], workerEnv, logs.worker);
    await waitForWorkerPool(db, worker);
  }

  const created = await fetch(`${urls.api}/v1/checkout/sessions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${merchant.api_key}`,
      'content-type': 'application/json',
      'idempotency-key': `${idempotencyPrefix}-template`,
    },
    body: CREATE_BODY,
  });
  const session = await created.json();
  if (created.status !== 201) {
    throw new Error(`Creating the first session: ${created.status} ${JSON.stringify(session)}`);
  }
  await seedSessions(db, session.id, settings.seed_sessions);
  step(`session ${session.id} created; merchant seeded to ${settings.seed_sessions} sessions`);

  step(`starting the bare express 5 + pg server on :${barePort}`);
  const bare = startNode(
    'bare',
    [BARE_MAIN],
    appEnv({ PORT: String(barePort), BENCH_TEMPLATE_ID: session.id }),
    logs.bare,
  );
  await waitForHealth(bare, urls.bare);

  const pids = { api: api.pid, bare: bare.pid, worker: worker?.pid };
  const context = { db, urls, pids, apiKey: merchant.api_key, sessionId: session.id };
  const failures = [];
  const warnings = [];
  const results = {};
  for (const scenario of scenarios) {
    results[scenario.name] = await runScenario(scenario, context, failures, warnings);
  }
  await db.end();
  await stopAll();

  const ratios = {};
  for (const scenario of scenarios) {
    const baseline = results[scenario.baseline];
    if (!baseline) continue;
    ratios[scenario.name] = {
      baseline: scenario.baseline,
      ratio:
        results[scenario.name].measured.requests_per_second / baseline.measured.requests_per_second,
    };
  }

  console.log(
    `\nc=${settings.connections}, warm-up ${settings.warmup_s} s discarded, ` +
      `measured ${settings.duration_s} s per scenario; ` +
      (TUNED
        ? `tuned setup: the API alone, LOG_LEVEL=${TUNED_LOG_LEVEL} (request logging at warn), ` +
          `NODE_ENV=production, DB pool ${TUNED_DATABASE_POOL_SIZE}, pool pre-filled by the CLI; `
        : 'default setup: API and worker as the README starts them, default logging and ' +
          'configuration, the pool filled by the worker; ') +
      `${settings.seed_sessions} sessions before the reads.`,
  );
  printTable(results, ratios);
  console.log(machineLine(machine));
  const headline = ratios['api-create'];
  if (headline) {
    console.log(
      `Headline: session creation with Idempotency-Key = ${headline.ratio.toFixed(2)} of the bare ` +
        `INSERT (target >= 0.6)${headline.ratio >= 0.6 ? '' : '  << BELOW TARGET'}`,
    );
  }

  if (warnings.length) {
    console.log('\nWARNING: the machine was not quiet, so these figures are low and noisy:');
    for (const warning of warnings) console.log(`  - ${warning}`);
  }
  const file = path.join(RESULTS_DIR, `api-${stamp}.json`);
  const report = {
    started_at: new Date(startedAt).toISOString(),
    git: gitDescription(),
    machine,
    settings,
    scenarios: results,
    ratios,
    failures,
    warnings,
    logs,
    cpu_profile_dir: profileDir,
  };
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Results: ${path.relative(ROOT, file)}`);
  if (profileDir) console.log(`CPU profile of the API: ${path.relative(ROOT, profileDir)}/`);

  if (failures.length) {
    console.error('\nFAILED: the figures above are not meaningful:');
    for (const failure of failures) console.error(`  - ${failure}`);
    console.error(
      `Server logs: ${path.relative(ROOT, logs.api)}, ${path.relative(ROOT, logs.bare)}`,
    );
    process.exitCode = 1;
  }
}

main().catch(async (error) => {
  console.error('\n[bench] FAILED:', error instanceof Error ? error.message : error);
  await stopAll();
  process.exit(1);
});
