import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@app/common';

// A probe must answer within a load balancer's patience, Redis or not.
export const REDIS_PROBE_TIMEOUT_MS = 1_000;

/**
 * A Redis connection for readiness checks and queue gauges. Unlike Bull's, it never queues a
 * command while disconnected (enableOfflineQueue: false): with Redis down a probe fails at once
 * instead of waiting for a reconnection. It reconnects by itself.
 */
@Injectable()
export class RedisProbe implements OnModuleDestroy {
  private readonly logger = new Logger(RedisProbe.name);
  private readonly client: Redis;
  private lastError: string | null = null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = new Redis(config.redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: REDIS_PROBE_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Without a listener ioredis prints every failed reconnection; log the first of a streak only.
    this.client.on('error', (error: Error) => {
      if (this.lastError !== error.message) {
        this.logger.warn({ reason: error.message }, 'Redis probe connection failed');
      }
      this.lastError = error.message;
    });
    this.client.on('ready', () => (this.lastError = null));
    this.client.connect().catch(() => undefined);
  }

  /** PING, bounded; throws when Redis is unreachable or slow. */
  async ping(): Promise<void> {
    await this.bounded(this.client.ping());
  }

  /** Runs a read-only pipeline, bounded; throws on any failed command. */
  async pipeline(commands: Array<[string, ...string[]]>): Promise<unknown[]> {
    const results = (await this.bounded(this.client.pipeline(commands).exec())) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.client.disconnect();
  }

  private async bounded<T>(operation: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        operation,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Redis did not answer within ${REDIS_PROBE_TIMEOUT_MS} ms`)),
            REDIS_PROBE_TIMEOUT_MS,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
