export * from './idempotency.module';
export * from './idempotency.service';
export * from './idempotency.types';
export * from './respond-idempotent';
export * from './idempotent-insert';
export * from './idempotency-key.decorator';
