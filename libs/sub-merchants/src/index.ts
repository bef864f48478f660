export * from './sub-merchants.module';
export * from './sub-merchants.service';
export * from './sub-merchant.entity';
export * from './sub-merchant-context';
export * from './dto/sub-merchant.dto';
export * from './dto/sub-merchant-scope-query.dto';
export * from './sub-merchant-code.decorator';
