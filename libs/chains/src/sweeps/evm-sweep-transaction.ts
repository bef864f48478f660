import { Authorization, getAddress, isAddress, SigningKey, Transaction } from 'ethers';
import { walletOf } from './evm-sweep-authorization';

export interface SweepBatchTransaction {
  chainId: number;
  /** The sweep delegate's address: the batch calls sweepMany on it. */
  delegate: string;
  /** encodeSweepMany's output. */
  calldata: string;
  /** The sweeper's nonce (its own lane, never the hot wallet's). */
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  gasLimit: bigint;
  /** Authorizations of the batch's not yet delegated addresses; empty once all delegate. */
  authorizationList: readonly Authorization[];
}

export interface SignedSweepBatch {
  txHash: string;
  rawTransaction: string;
}

/**
 * Signs a sweep batch locally, without a node: type 4 (EIP-7702) when it carries
 * authorizations, type 2 otherwise. The hash is known before broadcast, so the write-ahead
 * journal can store it first.
 */
export function signSweepBatch(
  sweeperPrivateKey: string | SigningKey,
  batch: SweepBatchTransaction,
): SignedSweepBatch {
  const { chainId, delegate, authorizationList } = batch;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new Error(`A sweep batch needs the network's chain id, got ${chainId}.`);
  }
  if (!isAddress(delegate)) throw new Error(`The delegate ${delegate} is not an address.`);
  if (!Number.isSafeInteger(batch.nonce) || batch.nonce < 0) {
    throw new Error(`The sweeper nonce must be a whole number, got ${batch.nonce}.`);
  }
  if (batch.maxPriorityFeePerGas > batch.maxFeePerGas) {
    throw new Error('The priority fee cannot exceed the max fee per gas.');
  }
  for (const authorization of authorizationList) {
    // Either mistake makes the node skip the authorization, and the address is then skipped.
    if (authorization.chainId !== BigInt(chainId)) {
      throw new Error(`An authorization is for chain ${authorization.chainId}, not ${chainId}.`);
    }
    if (getAddress(authorization.address) !== getAddress(delegate)) {
      throw new Error(`An authorization delegates to ${authorization.address}, not ${delegate}.`);
    }
  }
  const transaction = Transaction.from({
    type: authorizationList.length > 0 ? 4 : 2,
    chainId: BigInt(chainId),
    to: getAddress(delegate),
    data: batch.calldata,
    value: 0n,
    nonce: batch.nonce,
    gasLimit: batch.gasLimit,
    maxFeePerGas: batch.maxFeePerGas,
    maxPriorityFeePerGas: batch.maxPriorityFeePerGas,
    authorizationList: authorizationList.length > 0 ? [...authorizationList] : null,
  });
  transaction.signature = walletOf(sweeperPrivateKey).signingKey.sign(transaction.unsignedHash);
  return { txHash: transaction.hash as string, rawTransaction: transaction.serialized };
}
