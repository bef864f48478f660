export * from './metrics.module';
export * from './metrics.service';
export * from './metrics-registry';
export * from './http-metrics';
export * from './job-metrics';
export * from './redis-probe';
export * from './metrics-server';
export * from './route-label';
