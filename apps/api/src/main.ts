import { APP_CONFIG, AppConfig, exitOnConfigurationError, loadAppConfig } from '@app/common';
import { createApiApp } from './create-api-app';

async function bootstrap(): Promise<void> {
  // Fail on a bad environment with a one-line reason before Nest starts anything.
  exitOnConfigurationError(loadAppConfig);
  const app = await createApiApp();
  await app.listen(app.get<AppConfig>(APP_CONFIG).port);
}

void bootstrap();
