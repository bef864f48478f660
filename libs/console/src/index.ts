export * from './console.module';
export * from './audit/audit-log';
