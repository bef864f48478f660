import { Foundation1763800000000 } from './1763800000000-foundation';
import { SubMerchants1763900000000 } from './1763900000000-sub-merchants';
import { DepositsAndLedger1764000000000 } from './1764000000000-deposits-and-ledger';
import { Payouts1764100000000 } from './1764100000000-payouts';
import { EventsAndWebhooks1764200000000 } from './1764200000000-events-and-webhooks';

/** Every migration in order. Listed explicitly so compiled and ts-node runs see the same set. */
export const MIGRATIONS = [
  Foundation1763800000000,
  SubMerchants1763900000000,
  DepositsAndLedger1764000000000,
  Payouts1764100000000,
  EventsAndWebhooks1764200000000,
];
