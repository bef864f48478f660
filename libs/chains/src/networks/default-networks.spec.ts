import { getAddress } from 'ethers';
import { isValidAddress } from '../hd/addresses';
import { MAINNET_NETWORKS, TESTNET_NETWORKS } from './default-networks';
import { CURRENCIES, NETWORK_NAMES, NetworkConfig } from './network.types';

const TABLES: Array<[string, Record<string, NetworkConfig>]> = [
  ['MAINNET_NETWORKS', MAINNET_NETWORKS],
  ['TESTNET_NETWORKS', TESTNET_NETWORKS],
];

describe.each(TABLES)('%s', (_name, table) => {
  it('describes every network under its own name', () => {
    expect(Object.keys(table).sort()).toEqual([...NETWORK_NAMES].sort());
    for (const [name, network] of Object.entries(table)) expect(network.name).toBe(name);
  });

  it('gives every network a distinct chain id', () => {
    const ids = Object.values(table).map((network) => network.chainId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses public https RPC URLs without credentials or query strings', () => {
    for (const network of Object.values(table)) {
      for (const value of [...network.rpcUrls, network.publicRpcUrl]) {
        const url = new URL(value);
        expect(url.protocol).toBe('https:');
        expect(url.username + url.password + url.search).toBe('');
      }
      expect(network.rpcUrls).toContain(network.publicRpcUrl);
    }
  });

  it('lists only valid, canonical token contracts with sane decimals', () => {
    for (const network of Object.values(table)) {
      for (const currency of CURRENCIES) {
        const token = network.tokens[currency];
        if (!token) continue;
        expect(isValidAddress(network.chainFamily, token.contract)).toBe(true);
        if (network.chainFamily === 'EVM') expect(getAddress(token.contract)).toBe(token.contract);
        expect([6, 18]).toContain(token.decimals);
      }
    }
  });

  it('leaves out the unsupported pairs', () => {
    expect(table.TRON.tokens.USDC).toBeUndefined();
    expect(table.BASE.tokens.USDT).toBeUndefined();
  });

  it('has positive whole confirmations', () => {
    for (const network of Object.values(table)) {
      expect(Number.isInteger(network.confirmations) && network.confirmations > 0).toBe(true);
    }
  });

  it('checks fees again well past the confirmations', () => {
    for (const network of Object.values(table)) {
      expect(network.finalityBlocks).toBeGreaterThanOrEqual(network.confirmations);
    }
  });
});

it('uses the expected chain ids', () => {
  const ids = (table: Record<string, NetworkConfig>) =>
    Object.fromEntries(Object.values(table).map((network) => [network.name, network.chainId]));
  expect(ids(MAINNET_NETWORKS)).toEqual({
    TRON: 728126428,
    BSC: 56,
    ETHEREUM: 1,
    POLYGON: 137,
    ARBITRUM: 42161,
    BASE: 8453,
    OPTIMISM: 10,
  });
  expect(ids(TESTNET_NETWORKS)).toEqual({
    TRON: 3448148188,
    BSC: 97,
    ETHEREUM: 11155111,
    POLYGON: 80002,
    ARBITRUM: 421614,
    BASE: 84532,
    OPTIMISM: 11155420,
  });
});
