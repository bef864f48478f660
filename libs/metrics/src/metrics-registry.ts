import { collectDefaultMetrics, Registry } from 'prom-client';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** Prefix of every metric of this service (process and Node.js metrics keep their usual names). */
export const METRIC_PREFIX = 'payments_';

/**
 * One registry per application instance, not prom-client's global one: tests build several apps
 * in one process, and a second registration of a metric name in one registry throws.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
