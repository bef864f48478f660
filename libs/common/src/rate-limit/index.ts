export * from './api-rate-limit.guard';
export * from './client-address';
export * from './rate-limit-buckets';
export * from './rate-limit-storage';
export * from './rate-limit.module';
export * from './trust-proxy';
