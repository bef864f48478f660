import { describeSweepCrashRun } from '../support/sweep-crash-run';

// Behind an RPC URL that answers each call from the node or from a backend six blocks behind, at
// random: a balance, a code, a nonce or a receipt may come from the past; a base fee spike leaves
// bids stuck, to be outbid. Still nothing booked twice or lost, no address left holding tokens,
// and every sweep ended on a confirmed receipt.
describeSweepCrashRun('Sweeps behind a lagging load balancer survive a worker killed at random', {
  rpc: { lagBlocks: 6 },
  baseFeeSpike: true,
  sweeperAccount: 6,
});
