import { describePayoutCrashRun } from '../support/payout-crash-run';

// Behind an RPC URL that answers each call from the node or from a backend six blocks behind, at
// random (every public RPC URL does), with a base fee spike that forces replacements: still each
// payout paid exactly once, its status matching the chain.
describePayoutCrashRun(
  'Payouts behind a lagging load balancer survive a worker killed at random moments',
  {
    rpc: { lagBlocks: 6 },
    baseFeeSpike: true,
  },
);
