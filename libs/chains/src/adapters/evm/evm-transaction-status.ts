import { JsonRpcProvider, TransactionReceipt } from 'ethers';
import { ChainError } from '../../rpc/chain-error';
import { TransactionStatus } from '../chain-adapter';

const TX_HASH_FORMAT = /^0x[0-9a-fA-F]{64}$/;

/** The hash in TokenTransfer format (0x + 64 lowercase hex), or a permanent ChainError. */
export function checkedTransactionHash(txHash: string, network: string): string {
  if (!TX_HASH_FORMAT.test(txHash)) {
    throw new ChainError(
      'permanent',
      `${JSON.stringify(txHash)} is not a transaction hash (0x + 64 hex)`,
      network,
    );
  }
  return txHash.toLowerCase();
}

/**
 * Status of a transaction on the node's canonical chain, or null without a receipt. `hash` is in
 * TokenTransfer format. Runs inside one attempt of EvmRpc.call: both reads go to the same node.
 */
export async function readTransactionStatus(
  provider: JsonRpcProvider,
  hash: string,
  network: string,
): Promise<TransactionStatus | null> {
  const receipt = await provider.getTransactionReceipt(hash);
  if (receipt === null) return null;
  // The head from the same node, after the receipt: it can only be at or past the receipt's
  // block there. A load balancer behind one URL may still answer from a lagging backend.
  const head = await provider.getBlockNumber();
  return toStatus(receipt, hash, head, network);
}

function toStatus(
  receipt: TransactionReceipt,
  hash: string,
  head: number,
  network: string,
): TransactionStatus {
  const invalid = (reason: string) =>
    new ChainError('permanent', `eth_getTransactionReceipt: invalid response (${reason})`, network);
  if (receipt.hash.toLowerCase() !== hash) throw invalid('receipt of another transaction');
  // Receipts have a status since Byzantium (2017); every supported network is past it.
  if (receipt.status !== 0 && receipt.status !== 1) throw invalid('receipt without a status');
  if (head < receipt.blockNumber) {
    throw new ChainError(
      'transient',
      `eth_getTransactionReceipt: block ${receipt.blockNumber} is beyond the head ${head} of the node`,
      network,
    );
  }
  return {
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash.toLowerCase(),
    succeeded: receipt.status === 1,
    confirmations: head - receipt.blockNumber + 1,
  };
}
