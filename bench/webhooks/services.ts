import { sleep, timestamp } from '../deposits/clock';
import { apiNodeArgs, runCli, startNode, TrackedProcess } from '../deposits/processes';
import { SQL_TRACE_PRELOAD } from '../deposits/settings';
import { readSqlTrace, SqlTraceSnapshot } from '../deposits/worker';
import { assertRunning } from '../payouts/services';
import { API_MAIN, benchEnvironment, serviceEnvironment, WORKER_MAIN } from './settings';

/*
 * The service as the README runs it: the built API and ONE built worker, each its own process,
 * default configuration but for WEBHOOKS_ALLOW_PRIVATE_URLS, and no chain. Merchants come from the
 * operator CLI and endpoints from the API, so every secret is one the service made.
 */

export interface Api {
  url: string;
  process: TrackedProcess;
}

export interface Worker {
  process: TrackedProcess;
  /** --trace-sql: the preloaded tracer answers over IPC. */
  sqlTrace: boolean;
}

export interface BenchMerchant {
  id: string;
  apiKey: string;
}

export interface Endpoint {
  id: string;
  merchantId: string;
  url: string;
  secret: string;
}

const START_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;

export async function startApi(port: number, logFile: string): Promise<Api> {
  const child = startNode(
    'api',
    apiNodeArgs(API_MAIN),
    serviceEnvironment({ PORT: String(port) }),
    logFile,
  );
  const api = { url: `http://127.0.0.1:${port}`, process: child };
  const deadline = timestamp() + START_TIMEOUT_MS;
  for (;;) {
    assertRunning(child);
    if (await isHealthy(api.url)) return api;
    if (timestamp() > deadline) throw new Error(`The API did not start; see ${logFile}`);
    await sleep(READY_POLL_MS);
  }
}

/** The worker: whether it delivers is the first check of the run (a probe event per endpoint). */
export function startWorker(logFile: string, sqlTrace: boolean): Worker {
  const preload = sqlTrace ? ['--require', SQL_TRACE_PRELOAD] : [];
  const child = startNode(
    'worker',
    [...preload, WORKER_MAIN],
    serviceEnvironment(),
    logFile,
    sqlTrace,
  );
  return { process: child, sqlTrace };
}

/** What the worker's SQL tracer has recorded so far (null without --trace-sql). */
export function workerSql(worker: Worker): Promise<SqlTraceSnapshot | null> {
  // bench/deposits reads its tracer from a worker of its own shape: only these fields are used.
  return readSqlTrace({
    scanIntervalMs: 0,
    process: worker.process,
    files: {
      networksFile: '',
      logFile: worker.process.logFile,
      sqlTrace: worker.sqlTrace,
      cpuProfileDir: null,
    },
  });
}

export function createMerchant(name: string): BenchMerchant {
  const created = runCli<{ merchant_id: string; api_key: string }>(
    ['merchants:create', '--name', name],
    benchEnvironment(),
  );
  return { id: created.merchant_id, apiKey: created.api_key };
}

/** POST /v1/webhook-endpoints with the merchant's key: the secret is only in this answer. */
export async function createEndpoint(
  api: Api,
  merchant: BenchMerchant,
  url: string,
): Promise<Endpoint> {
  const body = await callApi<{ id: string; secret: string }>(
    api,
    merchant,
    'POST',
    '/v1/webhook-endpoints',
    { url, description: 'bench:webhooks' },
  );
  return { id: body.id, merchantId: merchant.id, url, secret: body.secret };
}

/** PATCH enabled: false; its queued deliveries wait (the end of a dead phase). */
export async function disableEndpoint(
  api: Api,
  merchant: BenchMerchant,
  endpoint: Endpoint,
): Promise<void> {
  await callApi(api, merchant, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { enabled: false });
}

export async function callApi<T>(
  api: Api,
  merchant: BenchMerchant,
  method: string,
  path: string,
  body: unknown,
): Promise<T> {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false; // not listening yet
  }
}
