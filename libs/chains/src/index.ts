export * from './networks/network.types';
export * from './networks/default-networks';
export * from './networks/native-coins';
export * from './networks/network-registry';
export { NetworksFileError } from './networks/networks-file';
export { secretInPublicRpcUrl } from './networks/public-rpc-url';
export * from './hd/addresses';
export {
  EVM_ACCOUNT_PATH,
  TRON_ACCOUNT_PATH,
  deriveAddress,
  deriveEvmAddress,
  deriveTronAddress,
  keyFingerprint,
} from './hd/derivation';
export * from './hd/hd-wallet';
export { AccountPrivateKey } from './hd/account-private-key';
export * from './chains.module';
export * from './adapters/chain-adapter';
export * from './adapters/chain-adapters';
export * from './rpc/chain-error';
export * from './rpc/retry';
export * from './adapters/evm';
export * from './payouts/payout-transport';
export type { BlockHeader, BlockReceipt } from './payouts/evm-block-receipts';
export * from './payouts/hot-wallet-key';
export * from './payouts/payout-transports';
export { EthersPayoutTransport } from './payouts/evm-payout-transport';
export * from './payouts/nonce-proofs';
export type { EthersPayoutTransportOptions } from './payouts/evm-payout-transport';
export { TronNodePayoutTransport } from './payouts/tron-payout-transport';
export { opStackFeeGap, receiptBlockHash, receiptFeeWei } from './adapters/evm/evm-receipt-fee';
export {
  ReceiptFeeUnknown,
  receiptsWithoutFee,
  requireWholeFee,
  wholeReceiptOr,
} from './adapters/evm/receipts-without-fee';
export type { ReceiptFeeNetwork } from './adapters/evm/evm-receipt-fee';
export { parseTransactionFeeSun } from './adapters/tron/tron-transaction-fee';
export * from './contracts/contract-artifacts';
export * from './contracts/multicall3';
export { signSweepAuthorization } from './sweeps/evm-sweep-authorization';
export type { SweepAuthorizationRequest } from './sweeps/evm-sweep-authorization';
export * from './sweeps/evm-sweep-calldata';
export * from './sweeps/evm-sweep-delegation';
export * from './sweeps/evm-sweep-receipt';
export * from './sweeps/evm-sweep-transaction';
