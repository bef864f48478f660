/** Network names are the same in sandbox and production; the environment picks mainnet or testnet. */
export const NETWORK_NAMES = [
  'TRON',
  'BSC',
  'ETHEREUM',
  'POLYGON',
  'ARBITRUM',
  'BASE',
  'OPTIMISM',
] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

export const CURRENCIES = ['USDT', 'USDC'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const CHAIN_FAMILIES = ['EVM', 'TRON'] as const;
export type ChainFamily = (typeof CHAIN_FAMILIES)[number];

export interface TokenConfig {
  /** EVM: checksummed 0x address. TRON: base58 T... address. */
  contract: string;
  /** The token's own decimals (18 for USDT/USDC on BSC, 6 on TRON and Ethereum). */
  decimals: number;
}

export interface NetworkConfig {
  name: NetworkName;
  /** Human name of the concrete chain, e.g. "Ethereum Sepolia" or "TRON Nile". */
  displayName: string;
  chainFamily: ChainFamily;
  /** EVM chain id; for TRON the conventional id of the chain (informational). */
  chainId: number;
  /** RPC endpoints the worker uses, in failover order. May carry secrets: never shown to clients. */
  rpcUrls: string[];
  /**
   * EVM only: a WebSocket endpoint (ws:// or wss://) whose `newHeads` subscription wakes the
   * deposit watcher as each block arrives; without it the watcher only polls. May carry secrets:
   * never shown to clients.
   */
  wsUrl?: string;
  /** The RPC URL shown to clients as `detection_rpc_url`. Must never carry a secret. */
  publicRpcUrl: string;
  /** Confirmations before a transfer counts. */
  confirmations: number;
  /**
   * EVM: blocks after which a booked fee's receipt is taken as final (docs/treasury.md, "Fees
   * become final"): deeper than any reorg expected, never below `confirmations` (finalityBlocksOf).
   * Optional so hand-built configurations (tests) need not name it; then `confirmations` counts.
   */
  finalityBlocks?: number;
  /**
   * EVM: an OP-stack rollup (Base, Optimism). Its sender also pays an L1 data fee, which the
   * GasPriceOracle quotes and every receipt but an OP deposit's (type 0x7e) carries as `l1Fee`:
   * a receipt without it tells no fee (receiptFeeWei). Unset: false (no L1 data fee).
   */
  opStack?: boolean;
  /** Tokens that exist on this network; a currency missing here is an unsupported pair. */
  tokens: Partial<Record<Currency, TokenConfig>>;
}

/** The depth at which a booked fee is final: finalityBlocks, never below confirmations. */
export function finalityBlocksOf(network: NetworkConfig): number {
  return Math.max(network.finalityBlocks ?? network.confirmations, network.confirmations);
}
