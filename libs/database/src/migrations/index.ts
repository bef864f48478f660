import { Foundation1763800000000 } from './1763800000000-foundation';
import { SubMerchants1763900000000 } from './1763900000000-sub-merchants';

/** Every migration in order. Listed explicitly so compiled and ts-node runs see the same set. */
export const MIGRATIONS = [Foundation1763800000000, SubMerchants1763900000000];
