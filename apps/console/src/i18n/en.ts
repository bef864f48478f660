import { authMessages } from './en/auth';
import { developersMessages } from './en/developers';
import { opsMessages } from './en/ops';
import { paymentsMessages } from './en/payments';
import { payoutsMessages } from './en/payouts';
import { refundsMessages } from './en/refunds';
import { settingsMessages } from './en/settings';
import { shellMessages } from './en/shell';
import { subMerchantsMessages } from './en/sub-merchants';

/** Every string the console shows, in English. Keys are grouped by area, one file each in en/. */
export const en = {
  ...shellMessages,
  ...authMessages,
  ...paymentsMessages,
  ...refundsMessages,
  ...payoutsMessages,
  ...developersMessages,
  ...settingsMessages,
  ...subMerchantsMessages,
  ...opsMessages,
} as const;

export type MessageKey = keyof typeof en;
