export * from './treasury.module';
