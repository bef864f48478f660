// `npm run demo`: the whole service on this machine, paid on a local chain.
// Starts the devnet (anvil + USDT/USDC + a SweepDelegate), creates the demo's database afresh,
// creates a sandbox merchant, runs the API and a worker watching and sweeping the devnet, books
// the wallets' opening balances, and prints what to run next. Ctrl-C stops everything.
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');

const ROOT = join(__dirname, '..');
const DEVNET_JSON = join(ROOT, '.devnet', 'devnet.json');
const DEVNET_ENV = join(ROOT, '.devnet', 'devnet.env');
// What another terminal sources to run the CLI against the demo (treasury:status, ...).
const DEMO_ENV = join(ROOT, '.devnet', 'demo.env');
// Every demo starts a new chain, so it starts new books: its own database, created afresh (the
// books, nonces and sweeps of a chain that is gone would never reconcile with the new one).
const DEMO_DATABASE_URL =
  process.env.DEMO_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_demo';
const PORT = process.env.PORT ?? '3000';
const OWNER = ['--email', 'owner@demo.shop', '--role', 'owner'];
const children = [];

function run(command, args, env = process.env) {
  const result = tryRun(command, args, env);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
  return result.stdout;
}

function tryRun(command, args, env, stderr = 'inherit') {
  return spawnSync(command, args, {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', stderr],
  });
}

function start(name, command, args, env) {
  // Its own process group, so stopping it also stops what npm started under it (anvil, node).
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  child.on('exit', (code) => {
    if (!stopping) {
      console.error(`${name} exited with ${code}; stopping the demo.`);
      stop(1);
    }
  });
  children.push(child);
  return child;
}

function readEnvFile(path) {
  const env = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

/** Drops the demo's own database (never DATABASE_URL's); db:migrate creates it again. */
async function dropDemoDatabase() {
  const url = new URL(DEMO_DATABASE_URL);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Books the devnet's funding of the hot wallet and the sweeper, so treasury:reconcile starts at 0.
 * The worker registers those wallets as it starts: until then a transaction moves nothing of ours.
 */
async function bookFunding(env, transactions) {
  for (const tx of transactions) {
    const args = ['run', '-s', 'cli', '--', 'treasury:book-funding', '--network', 'ETHEREUM'];
    await waitFor(
      () => tryRun('npm', [...args, '--tx', tx], env, 'pipe').status === 0,
      60_000,
      `the worker's wallets (booking ${tx})`,
    );
  }
}

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  setTimeout(() => process.exit(code), 3000).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function main() {
  console.log('Building...');
  run('npm', ['run', '-s', 'build']);
  const startedAt = Date.now();
  start('devnet', 'npm', ['run', '-s', 'devnet'], process.env);
  await waitFor(
    () => existsSync(DEVNET_ENV) && statSync(DEVNET_ENV).mtimeMs >= startedAt,
    60_000,
    'the devnet',
  );
  const devnet = JSON.parse(readFileSync(DEVNET_JSON, 'utf8'));
  const demoEnv = {
    ...readEnvFile(DEVNET_ENV),
    APP_ENV: 'sandbox',
    DATABASE_URL: DEMO_DATABASE_URL,
  };
  writeFileSync(
    DEMO_ENV,
    Object.entries(demoEnv)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n') + '\n',
  );
  const env = {
    ...process.env,
    ...demoEnv,
    PORT,
    DEPOSIT_SCAN_INTERVAL_MS: process.env.DEPOSIT_SCAN_INTERVAL_MS ?? '1000',
    // A new database each time: a small pool is filled in a moment (60,000 takes a minute).
    PAY_ADDRESS_POOL_TARGET: process.env.PAY_ADDRESS_POOL_TARGET ?? '1000',
    // A local demo delivers webhooks to receivers on this machine (never to metadata addresses).
    WEBHOOKS_ALLOW_PRIVATE_URLS: process.env.WEBHOOKS_ALLOW_PRIVATE_URLS ?? 'true',
  };
  await dropDemoDatabase();
  run('npm', ['run', '-s', 'cli', '--', 'db:migrate'], env);
  const merchant = JSON.parse(
    run('npm', ['run', '-s', 'cli', '--', 'merchants:create', '--name', 'Demo Shop'], env).trim(),
  );
  // The owner's invitation to the merchant console: open it, set a password, enrol two-factor.
  const invitation = JSON.parse(
    run(
      'npm',
      ['run', '-s', 'cli', '--', 'console:invite', '--merchant', merchant.merchant_id, ...OWNER],
      env,
    ).trim(),
  );
  start('api', 'npm', ['run', '-s', 'start:api'], { ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  start('worker', 'npm', ['run', '-s', 'start:worker'], {
    ...env,
    LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
  });
  await waitFor(
    () =>
      fetch(`http://localhost:${PORT}/health`).then(
        (response) => response.ok,
        () => false,
      ),
    60_000,
    'the API',
  );
  await bookFunding(env, devnet.funding_transactions ?? []);
  const api = `http://localhost:${PORT}`;
  console.log(`
Demo running (sandbox; ETHEREUM is the local devnet at ${devnet.rpc_url}).

  Merchant:     ${merchant.merchant_id} (Demo Shop)
  API key:      ${merchant.api_key}
  Swagger UI:   ${api}/docs   (Authorize with the key above)
  Console:      ${invitation.invitation_url}
                (owner@demo.shop: choose a password, scan the QR code with an authenticator app;
                 afterwards sign in at ${api}/console)

Create a session:
  curl -s ${api}/v1/checkout/sessions -H "Authorization: Bearer ${merchant.api_key}" \\
    -H "Content-Type: application/json" -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
    -d '{"pricing_amount":"25","pricing_currency":"USD","currency":"USDT","network":"ETHEREUM"}'

Pay it on the devnet (use the session's pay_address):
  npm run -s devnet:pay -- <pay_address> 25 USDT

Then GET ${api}/v1/checkout/sessions/<id> shows it Paid, and ${api}/v1/balances the net amount.

Pay part of it out (the worker sends it from the devnet hot wallet; ETHEREUM's payout fee is 3):
  curl -s ${api}/v1/payouts -H "Authorization: Bearer ${merchant.api_key}" \\
    -H "Content-Type: application/json" -H "Idempotency-Key: $(node -e 'console.log(crypto.randomUUID())')" \\
    -d '{"amount":"10","currency":"USDT","network":"ETHEREUM","to_address":"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"}'

GET ${api}/v1/payouts/<id> shows it Completed with its tx_hash a block or two later.

Within about 15 seconds of the payment the worker sweeps the session's address into the hot
wallet (one EIP-7702 transaction from the sweeper, which pays the gas). In another terminal:
  set -a; . .devnet/demo.env; set +a
  npm run -s cli -- treasury:status       # deposits, hot wallet, sweeper ETH, what is left to sweep
  npm run -s cli -- treasury:reconcile    # books = chain, one row per currency; exit 0 when equal

Ctrl-C stops the devnet, the API and the worker.
`);
}

main().catch((error) => {
  console.error(error.message ?? error);
  stop(1);
});
