import { describeSweepCrashRun } from '../support/sweep-crash-run';

describeSweepCrashRun('Sweeps survive a worker killed at random moments', {
  rpc: 'direct',
  baseFeeSpike: false,
  sweeperAccount: 5,
});
