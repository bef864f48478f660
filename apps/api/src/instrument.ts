// Imported first by main.ts: OpenTelemetry starts before Nest, Express, pg and ioredis load.
import { startTracingIfEnabled } from '@app/common/tracing/register';

startTracingIfEnabled('payments-api');
