export * from './balances.module';
