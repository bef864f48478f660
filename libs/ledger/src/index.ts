export * from './ledger.module';
export * from './ledger.service';
export * from './ledger.types';
export * from './accounts';
export * from './treasury-postings';
