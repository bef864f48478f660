export * from './checkout.module';
export * from './checkout-session.entity';
export * from './session-transaction.entity';
export * from './checkout-sessions.service';
export * from './checkout-session.mapper';
export * from './pay-addresses/pay-address-pool.service';
export * from './dto/checkout-session.dto';
export * from './dto/create-checkout-session.dto';
