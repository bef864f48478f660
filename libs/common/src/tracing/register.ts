/**
 * Loaded first by each process's main.ts (OpenTelemetry's Node setup: the SDK starts before the
 * modules it instruments are required). Tracing is off unless TRACING_ENABLED=true; off, this
 * file loads nothing else, so a process without tracing pays nothing for it.
 */
export function startTracingIfEnabled(serviceName: string): void {
  if (process.env.TRACING_ENABLED !== 'true') return;
  // Required lazily: the SDK and its instrumentations are only loaded when tracing is on.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./start-tracing') as typeof import('./start-tracing');
  startTracing({ serviceName });
}
