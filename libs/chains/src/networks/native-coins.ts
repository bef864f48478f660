import { NetworkName } from './network.types';

/**
 * The coin each network's fees are paid in, as the ledger names it. Amounts in it are booked in
 * whole coins with the chain's own decimals (wei: 18, sun: 6), exactly, in NUMERIC.
 */
export const NATIVE_COINS: Record<NetworkName, { symbol: string; decimals: number }> = {
  TRON: { symbol: 'TRX', decimals: 6 },
  BSC: { symbol: 'BNB', decimals: 18 },
  ETHEREUM: { symbol: 'ETH', decimals: 18 },
  POLYGON: { symbol: 'POL', decimals: 18 },
  ARBITRUM: { symbol: 'ETH', decimals: 18 },
  BASE: { symbol: 'ETH', decimals: 18 },
  OPTIMISM: { symbol: 'ETH', decimals: 18 },
};
