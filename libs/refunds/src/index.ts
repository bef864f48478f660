export * from './refunds.module';
export * from './refund-payouts.module';
export * from './refund.types';
export * from './refund.mapper';
export * from './refund-ledger';
export * from './dto/refund.dto';
export * from './dto/create-refund.dto';
export * from './refund-expiry';
