import { Injectable } from '@nestjs/common';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { RedisProbe } from '@app/metrics';
import { DrainState } from './drain-state';
import { RpcProbes } from './rpc-probes';

/** ok: serve. degraded: serve, a network's RPC is down. error: PostgreSQL or Redis is down. */
export type ReadinessStatus = 'ok' | 'degraded' | 'error' | 'shutting_down';

export interface Readiness {
  status: ReadinessStatus;
  info: HealthCheckResult['info'];
  error: HealthCheckResult['error'];
  details: HealthCheckResult['details'];
}

const DATABASE_TIMEOUT_MS = 1_500;

/**
 * What /health/ready answers. PostgreSQL and Redis decide readiness: without them the API can
 * neither read nor queue. A watched network's RPC is reported but does not: the API serves
 * sessions without it (only the worker talks to chains), so taking every API process out of the
 * load balancer because one chain's node is down would turn a detection delay into an outage.
 */
@Injectable()
export class ReadinessCheck {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisProbe,
    private readonly rpcs: RpcProbes,
    private readonly drain: DrainState,
  ) {}

  async check(): Promise<Readiness> {
    const [dependencies, rpcs] = await Promise.all([
      this.checkDependencies(),
      this.rpcs.probeAll(),
    ]);
    const rpcResults: HealthIndicatorResult = {};
    for (const probe of rpcs) {
      const key = `rpc_${probe.network}`;
      Object.assign(
        rpcResults,
        probe.up
          ? this.indicators.check(key).up({ required: false })
          : this.indicators.check(key).down({ required: false, message: probe.reason }),
      );
    }
    const rpcDown: HealthIndicatorResult = {};
    const rpcUp: HealthIndicatorResult = {};
    for (const [key, result] of Object.entries(rpcResults)) {
      (result.status === 'up' ? rpcUp : rpcDown)[key] = result;
    }
    return {
      status: this.drain.draining
        ? 'shutting_down'
        : dependencies.status === 'error'
          ? 'error'
          : Object.keys(rpcDown).length
            ? 'degraded'
            : 'ok',
      info: { ...(dependencies.info ?? {}), ...rpcUp },
      error: { ...(dependencies.error ?? {}), ...rpcDown },
      details: { ...dependencies.details, ...rpcResults },
    };
  }

  /** Only the database: what GET /health has always answered. */
  async checkDatabase(): Promise<HealthCheckResult> {
    return this.run([() => this.pingDatabase()]);
  }

  private checkDependencies(): Promise<HealthCheckResult> {
    return this.run([() => this.pingDatabase(), () => this.pingRedis()]);
  }

  private pingDatabase() {
    return this.database.pingCheck('database', { timeout: DATABASE_TIMEOUT_MS });
  }

  private async pingRedis() {
    const redis = this.indicators.check('redis');
    try {
      await this.redis.ping();
      return redis.up();
    } catch (error) {
      return redis.down({ message: (error as Error).message });
    }
  }

  /** Terminus throws its 503 with the result as the body; we want the result either way. */
  private async run(checks: Parameters<HealthCheckService['check']>[0]) {
    try {
      return await this.health.check(checks);
    } catch (error) {
      const body = (error as { getResponse?: () => unknown }).getResponse?.();
      if (body && typeof body === 'object' && 'status' in body) return body as HealthCheckResult;
      throw error;
    }
  }
}
