export * from './request-log.module';
export * from './request-log.writer';
export * from './request-log-retention';
export * from './request-log.repository';
