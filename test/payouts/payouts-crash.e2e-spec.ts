import { describePayoutCrashRun } from '../support/payout-crash-run';

describePayoutCrashRun('Payouts survive a worker killed at random moments', {
  rpc: 'direct',
  baseFeeSpike: false,
});
