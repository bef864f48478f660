import autocannon, { Result } from 'autocannon';
import { cpuSnapshot, CpuSnapshot, cpuUsage, machineTimes } from '../kit/cpu';

/** The scenarios of bench:api, how each is loaded (autocannon) and what a load measured. */

export const CREATE_BODY = JSON.stringify({
  pricing_amount: '10.00',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'TRON',
});
const REQUEST_TIMEOUT_S = 5;

export type Server = 'api' | 'bare';

export interface Scenario {
  name: string;
  label: string;
  server: Server;
  method: 'GET' | 'POST';
  path: (sessionId: string) => string;
  /** A fresh Idempotency-Key on every request. */
  uniqueKey?: boolean;
  creates?: boolean;
  /** The bare scenario this one is compared with. */
  baseline?: string;
}

// Every scenario: one route, one request shape. Both servers get identical requests (the bare one
// ignores the Authorization and Idempotency-Key headers), so the client side costs the same.
const get = (name: string, label: string, server: Server, path: Scenario['path']): Scenario => ({
  name,
  label,
  server,
  method: 'GET',
  path,
});
const create = (name: string, label: string, server: Server, uniqueKey: boolean): Scenario => ({
  name,
  label,
  server,
  method: 'POST',
  path: () => '/v1/checkout/sessions',
  uniqueKey,
  creates: true,
});
const session = (id: string) => `/v1/checkout/sessions/${id}`;
export const SCENARIOS: Scenario[] = [
  { ...get('api-get', 'GET /v1/checkout/sessions/{id}', 'api', session), baseline: 'bare-get' },
  get('bare-get', 'bare GET by primary key', 'bare', session),
  get(
    'api-list',
    'GET /v1/checkout/sessions?page_size=20',
    'api',
    () => '/v1/checkout/sessions?page_size=20',
  ),
  {
    ...create('api-create', 'POST /v1/checkout/sessions + Idempotency-Key', 'api', true),
    baseline: 'bare-insert',
  },
  {
    ...create('api-create-nokey', 'POST /v1/checkout/sessions, no key', 'api', false),
    baseline: 'bare-insert',
  },
  create('bare-insert', 'bare INSERT (express 5 + pg)', 'bare', true),
];

export interface LoadTarget {
  url: string;
  apiKey: string;
  sessionId: string;
  connections: number;
}

let idempotencyCounter = 0;
export const IDEMPOTENCY_PREFIX = `bench-${process.pid}-${Date.now().toString(36)}`;

export function load(scenario: Scenario, target: LoadTarget, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        connections: target.connections,
        pipelining: 1,
        duration: seconds,
        // A request still unanswered after this is an error (the run then fails).
        timeout: REQUEST_TIMEOUT_S,
        method: scenario.method,
        headers: {
          authorization: `Bearer ${target.apiKey}`,
          ...(scenario.method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        body: scenario.method === 'POST' ? CREATE_BODY : undefined,
        requests: [
          {
            path: scenario.path(target.sessionId),
            ...(scenario.uniqueKey
              ? {
                  setupRequest: (request) => {
                    request.headers['idempotency-key'] =
                      `${IDEMPOTENCY_PREFIX}-${++idempotencyCounter}`;
                    return request;
                  },
                }
              : {}),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

export type Summary = ReturnType<typeof summarize>;

export function summarize(result: Result) {
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

/*
 * CPU time per component (Linux /proc): with everything on one small machine, CPU per request says
 * where the time goes better than latency does. PostgreSQL is every postgres process (the WAL
 * writer included); the client is this process (autocannon).
 */
export interface CpuWindow {
  snapshot: CpuSnapshot;
  machine: ReturnType<typeof machineTimes>;
}

export function cpuWindow(serverPid: number | null, workerPid: number | null): CpuWindow {
  return {
    snapshot: cpuSnapshot(null, { server: serverPid, worker: workerPid }),
    machine: machineTimes(),
  };
}

export function cpuPerRequest(before: CpuWindow, after: CpuWindow, requests: number) {
  const usage = cpuUsage(before.snapshot, after.snapshot);
  const ms = {
    server: usage.ms.server,
    worker: usage.ms.worker,
    client: usage.ms.bench,
    postgres: usage.ms.postgres,
  };
  const cores = (value: number) => Math.round((value / (usage.seconds * 1000)) * 100) / 100;
  const perRequest = (value: number | null) =>
    value === null || !requests ? null : Math.round((value * 1000) / requests);
  // Whatever else ran on the machine meanwhile (other people's builds and tests) competes for
  // the same cores: more than ~0.2 of a core makes the phase's figures doubtful.
  const machine =
    before.machine && after.machine && usage.otherCores !== null
      ? {
          other_cores: usage.otherCores,
          interrupt_cores: cores(after.machine.interrupts - before.machine.interrupts),
          steal_cores: cores(after.machine.steal - before.machine.steal),
        }
      : null;
  return {
    ms,
    us_per_request: {
      server: perRequest(ms.server),
      worker: perRequest(ms.worker),
      postgres: perRequest(ms.postgres),
      client: perRequest(ms.client),
    },
    cores_busy: usage.coresBusy,
    machine,
  };
}
