import { BullModule } from '@nestjs/bull';
import { APP_CONFIG, AppConfig } from './config/app-config';

/** Bull's Redis connection for an app, namespaced by environment so sandbox and production never share jobs. */
export function queueRootModule() {
  return BullModule.forRootAsync({
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => ({
      url: config.redisUrl,
      prefix: `payments:${config.env}`,
    }),
  });
}
