import { IsOptional, Matches } from 'class-validator';
import { IntegerSetting } from './integer-setting';
import { WebhookVariables } from './webhook-variables';

/**
 * The variables of running the service (docs/operations.md): the database pool and its timeouts,
 * retention, metrics, shutdown, HTTP keep-alive, the pay-address pool and console sessions. The
 * last base class of EnvironmentVariables (see there for the chain's order).
 */
export class OperationVariables extends WebhookVariables {
  @IntegerSetting({ min: 1, max: 200 })
  DATABASE_POOL_SIZE = 20;

  // The API's statements only (docs/operations.md): one that runs longer is cancelled and its
  // request answers 503, instead of holding a connection and the database for as long as it
  // takes (a list with include_total over a huge merchant). 0 = no limit.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_STATEMENT_TIMEOUT_MS = 15000;

  // The API's exact list totals (`include_total=true`) only: a count over a huge merchant is
  // cancelled after this long and the list answers 200 with `X-Total-Count-At-Least` instead of
  // failing (docs/pagination.md). 0 = only DATABASE_STATEMENT_TIMEOUT_MS applies.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_LIST_TOTAL_TIMEOUT_MS = 2000;

  // The API's connections only: one left idle inside a transaction this long (a request stuck
  // between two statements) is closed by PostgreSQL, releasing its locks. 0 = no limit.
  @IntegerSetting({ min: 0, max: 3600000, minMeans: 'none' })
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS = 60000;

  // The API's pool only: how long a request waits for a connection (a free one of the pool, or a
  // new one to PostgreSQL) before it answers 503 instead of hanging. 0 = forever.
  @IntegerSetting({ min: 0, max: 600000, minMeans: 'none' })
  DATABASE_CONNECT_TIMEOUT_MS = 10000;

  // Retention (docs/operations.md, "Data retention"): the worker deletes older rows on a schedule,
  // in batches. 0 = keep forever. Idempotency keys have none: their 24 hours are the API's contract.
  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_WEBHOOK_ATTEMPTS_DAYS = 30;

  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_EVENTS_DAYS = 90;

  // The console's request log (what the console shows is what is kept).
  @IntegerSetting({ min: 0, max: 3650, minMeans: 'keep' })
  RETENTION_REQUEST_LOG_DAYS = 30;

  // Rows per DELETE statement: each is its own short transaction, so locks stay brief.
  @IntegerSetting({ min: 100, max: 100000 })
  RETENTION_BATCH_SIZE = 1000;

  // Operations (docs/operations.md). When set, /metrics wants `Authorization: Bearer <token>`.
  @IsOptional()
  @Matches(/^\S{16,}$/, { message: 'METRICS_TOKEN must be at least 16 characters, no spaces.' })
  METRICS_TOKEN?: string;

  @IntegerSetting({ min: 0, max: 65535, minMeans: 'off' })
  WORKER_METRICS_PORT = 9464;

  // Below the orchestrator's grace period (Kubernetes: 30 s), so the process ends on its own.
  @IntegerSetting({ min: 1000, max: 600000 })
  SHUTDOWN_TIMEOUT_MS = 25000;

  // Longer than a load balancer's idle timeout (AWS ALB and nginx: 60 s): a balancer reusing a
  // connection the API has just closed answers the client 502. Node's own default is 5 s.
  @IntegerSetting({ min: 1000, max: 600000 })
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65000;

  // Sized for a burst: at 1,000 sessions a second, 20 s of creation takes 20,000 addresses per
  // family without the worker deriving any (derivation competes with the API for CPU).
  @IntegerSetting({ min: 10, max: 1000000 })
  PAY_ADDRESS_POOL_TARGET = 60000;

  /** Below this many unclaimed addresses the worker tops the pool up; default a sixth of the target. */
  @IsOptional()
  @IntegerSetting({ min: 1, max: 1000000 })
  PAY_ADDRESS_POOL_LOW_WATERMARK?: number;

  // The merchant console (docs/console.md): a session unused this long ends (the absolute limit
  // is 12 hours whatever this says).
  @IntegerSetting({ min: 5, max: 720 })
  CONSOLE_SESSION_IDLE_MINUTES = 30;
}
