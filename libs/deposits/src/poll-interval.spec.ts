import { MAINNET_NETWORKS, NetworkName, TESTNET_NETWORKS } from '@app/chains';
import { MIN_POLL_INTERVAL_MS, pollIntervalMs, staleHeadMs } from './poll-interval';

describe('pollIntervalMs', () => {
  const network = (name: NetworkName, testnet = false) =>
    (testnet ? TESTNET_NETWORKS : MAINNET_NETWORKS)[name];

  it('polls a quarter of a block, capped by DEPOSIT_SCAN_INTERVAL_MS', () => {
    expect(pollIntervalMs(network('ETHEREUM'), 3_000)).toBe(3_000);
    expect(pollIntervalMs(network('ETHEREUM'), 1_000)).toBe(1_000);
    expect(pollIntervalMs(network('TRON'), 3_000)).toBe(750);
    expect(pollIntervalMs(network('POLYGON'), 3_000)).toBe(500);
    expect(pollIntervalMs(network('ETHEREUM', true), 3_000)).toBe(3_000);
  });

  it('never polls faster than the floor, even for sub-second chains', () => {
    expect(pollIntervalMs(network('ARBITRUM'), 3_000)).toBe(MIN_POLL_INTERVAL_MS);
    expect(pollIntervalMs(network('BSC'), 3_000)).toBe(MIN_POLL_INTERVAL_MS);
    expect(pollIntervalMs(network('ETHEREUM'), 100)).toBe(MIN_POLL_INTERVAL_MS);
  });

  it('polls a chain of unknown pace (a devnet) at the fastest rate', () => {
    expect(pollIntervalMs({ ...network('ETHEREUM'), chainId: 31337 }, 3_000)).toBe(
      MIN_POLL_INTERVAL_MS,
    );
  });
});

describe('staleHeadMs', () => {
  it('is ten blocks of the chain, never less than a minute', () => {
    expect(staleHeadMs(MAINNET_NETWORKS.ETHEREUM)).toBe(120_000);
    expect(staleHeadMs(MAINNET_NETWORKS.TRON)).toBe(60_000);
    expect(staleHeadMs(MAINNET_NETWORKS.BSC)).toBe(60_000);
    expect(staleHeadMs({ ...MAINNET_NETWORKS.ETHEREUM, chainId: 31337 })).toBe(60_000);
  });
});
