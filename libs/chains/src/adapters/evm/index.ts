export { EvmChainAdapter } from './evm-chain-adapter';
export type { EvmChainAdapterOptions } from './evm-chain-adapter';
export { ERC20_TRANSFER_TOPIC } from './transfer-logs';
