import { BullModule } from '@nestjs/bull';
import { APP_CONFIG, AppConfig } from './config/app-config';

/** The start of every Bull key of this environment (read by the queue gauges too). */
export function queueKeyPrefix(config: Pick<AppConfig, 'env'>): string {
  return `payments:${config.env}`;
}

export interface QueueRootOptions {
  /**
   * No Redis connection until a queue is first used (the operator CLI: most of its commands touch
   * only the database). Bull otherwise connects as each queue is created, to check the Redis
   * version; the API and the worker keep that check.
   */
  connectOnFirstUse?: boolean;
}

/** Bull's Redis connection for an app, namespaced by environment so sandbox and production never share jobs. */
export function queueRootModule(options: QueueRootOptions = {}) {
  // A Bull option its typings leave out.
  const versionCheck = options.connectOnFirstUse ? { skipVersionCheck: true } : {};
  return BullModule.forRootAsync({
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => ({
      url: config.redisUrl,
      prefix: queueKeyPrefix(config),
      ...versionCheck,
    }),
  });
}
