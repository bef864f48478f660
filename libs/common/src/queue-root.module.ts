import { BullModule } from '@nestjs/bull';
import { APP_CONFIG, AppConfig } from './config/app-config';

/** The start of every Bull key of this environment (read by the queue gauges too). */
export function queueKeyPrefix(config: Pick<AppConfig, 'env'>): string {
  return `payments:${config.env}`;
}

/** Bull's Redis connection for an app, namespaced by environment so sandbox and production never share jobs. */
export function queueRootModule() {
  return BullModule.forRootAsync({
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => ({
      url: config.redisUrl,
      prefix: queueKeyPrefix(config),
    }),
  });
}
