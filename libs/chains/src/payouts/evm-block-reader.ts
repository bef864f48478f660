import { toQuantity } from 'ethers';
import { EvmRpc } from '../adapters/evm/evm-rpc';
import { checkedTransactionHash } from '../adapters/evm/evm-transaction-status';
import { NetworkConfig } from '../networks/network.types';
import { ChainError } from '../rpc/chain-error';
import { ReceiptFeeUnknown, receiptsWithoutFee } from '../adapters/evm/receipts-without-fee';
import { nodeErrorOf } from './evm-broadcast-errors';
import {
  BlockHeader,
  BlockReceipt,
  BlockReceiptsRefused,
  parseBlockHeader,
  ParsedReceipt,
  parseReceipt,
  receiptInBlock,
  receiptsOfBlock,
} from './evm-block-receipts';
import { isUnsupportedMethod } from './evm-payout-checks';
import { TransactionLookup } from './payout-transport';

const notMined = (lookup: TransactionLookup): boolean => lookup.state !== 'mined';
/** No receipt, or one of another block than the header's: no answer for that block. */
const notIn =
  (block: BlockHeader, txHash: string) =>
  (receipt: ParsedReceipt | null): boolean =>
    receiptInBlock(receipt, block, txHash) === null;

// A node that answered "method not found" to eth_getBlockReceipts is asked again after this long.
const BLOCK_RECEIPTS_RETRY_MS = 10 * 60_000;

/**
 * What EthersPayoutTransport reads of blocks and receipts: a transaction's receipt (lookup), a
 * block's header by number or hash, and the receipts of a block's transactions (receiptsIn).
 */
export class EvmBlockReader {
  /** Until when eth_getBlockReceipts is taken as missing ("method not found"): receipts one by one. */
  private blockReceiptsUnsupportedUntil = 0;

  constructor(
    private readonly network: NetworkConfig,
    private readonly rpc: EvmRpc,
  ) {}

  /**
   * Mined (receipt) or pending (in the node's pool) or unknown, all read from one node: the raw
   * receipt once (status, block and fee from the same answer), then that node's head.
   */
  async lookup(txHash: string): Promise<TransactionLookup> {
    const hash = checkedTransactionHash(txHash, this.network.name);
    const lookup = await this.noting(hash, () => this.lookupOnce(hash));
    if (lookup.state === 'mined') receiptsWithoutFee.answered(this.network.name, hash);
    return lookup;
  }

  /**
   * A ReceiptFeeUnknown once every URL was asked is noted (the gauge
   * payments_chain_receipts_without_fee, an error past 10 minutes) and thrown on: nothing is
   * decided on a receipt without its fee.
   */
  private async noting<T>(txHash: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ReceiptFeeUnknown) {
        receiptsWithoutFee.noted(this.network.name, txHash, error.message);
      }
      throw error;
    }
  }

  private async lookupOnce(hash: string): Promise<TransactionLookup> {
    // A receipt without its fee from one URL is not replaced by another's pending or unknown.
    return this.rpc.callReceipt('eth_getTransactionReceipt', notMined, async (provider) => {
      const receipt = parseReceipt(
        await provider.send('eth_getTransactionReceipt', [hash]),
        this.network,
      );
      if (receipt) {
        if (receipt.txHash !== hash) {
          throw this.error(
            'permanent',
            'eth_getTransactionReceipt: invalid response (receipt of another transaction)',
          );
        }
        // The head from the same node, after the receipt: it can only be at or past the
        // receipt's block there. A load balancer behind one URL may still answer from a lagging
        // backend.
        const head = await provider.getBlockNumber();
        if (head < receipt.blockNumber) {
          throw this.error(
            'transient',
            `eth_getTransactionReceipt: block ${receipt.blockNumber} is beyond the head ${head} of the node`,
          );
        }
        const { blockNumber, blockHash, succeeded, feeBaseUnits } = receipt;
        const confirmations = head - blockNumber + 1;
        return {
          state: 'mined',
          status: { blockNumber, blockHash, succeeded, confirmations },
          feeBaseUnits,
        };
      }
      // Mined between the two reads, it reads as pending here and as mined on the next lookup.
      const transaction: unknown = await provider.send('eth_getTransactionByHash', [hash]);
      return transaction ? { state: 'pending' } : { state: 'unknown' };
    });
  }

  async blockHeader(number: number): Promise<BlockHeader | null> {
    return this.rpc.call('eth_getBlockByNumber', async (provider) =>
      parseBlockHeader(
        await provider.send('eth_getBlockByNumber', [toQuantity(number), false]),
        number,
        this.network.name,
      ),
    );
  }

  async blockHeaderByHash(hash: string, number: number): Promise<BlockHeader | null> {
    const header = await this.rpc.call('eth_getBlockByHash', async (provider) =>
      parseBlockHeader(
        await provider.send('eth_getBlockByHash', [hash, false]),
        number,
        this.network.name,
      ),
    );
    if (header && header.hash !== hash.toLowerCase()) {
      throw this.error('permanent', 'eth_getBlockByHash: invalid response (another block)');
    }
    return header;
  }

  async receiptsIn(
    block: BlockHeader,
    txHashes: string[],
  ): Promise<Map<string, BlockReceipt> | null> {
    if (!txHashes.length) return new Map();
    if (this.blockReceiptsPay(block, txHashes.length)) {
      const refusals = { seen: false };
      const read = await this.refusedAsUnread(refusals, () =>
        this.blockReceipts(block, txHashes, refusals),
      );
      if (read !== 'unsupported' && read !== 'refused') {
        for (const txHash of read?.keys() ?? [])
          receiptsWithoutFee.answered(this.network.name, txHash);
        return read;
      }
    }
    const found = new Map<string, BlockReceipt>();
    for (const txHash of txHashes) {
      let receipt: ParsedReceipt | null;
      try {
        receipt = await this.noting(txHash, () =>
          // A receipt not in this block (another branch) is no answer either (review r9b
          // follow-up 3, L-4): the URLs after it are asked on, for the canonical one.
          this.rpc.callReceipt(
            'eth_getTransactionReceipt',
            notIn(block, txHash),
            async (provider) =>
              parseReceipt(
                await provider.send('eth_getTransactionReceipt', [txHash]),
                this.network,
              ),
          ),
        );
      } catch (error) {
        if (!(error instanceof ReceiptFeeUnknown)) throw error;
        // No URL answered its fee: only this receipt is left out, and the block is read on
        // (review r9b follow-up, M2: the whole run stalled on it for 30 looks, and payouts mined
        // after it waited). A transaction in no block read proves nothing: its payout is looked
        // up alone, and decided once a node answers its receipt whole.
        continue;
      }
      const inBlock = receiptInBlock(receipt, block, txHash);
      // Not there, or in another block on this node's view: this block is not read.
      if (!inBlock) return null;
      receiptsWithoutFee.answered(this.network.name, txHash);
      found.set(txHash, inBlock);
    }
    return found;
  }

  /**
   * No URL (nor retry, perhaps another backend) answered the block's receipts whole, and one of
   * them at least refused them: 'refused', and the caller reads them one by one, each against
   * the header. Any attempt's refusal counts, not only the last one's (review r9a, N4): one URL
   * refusing and another timing out ended on the timeout, and the run stalled on the block for
   * 30 looks. Not remembered: the next block asks for them whole again.
   */
  private async refusedAsUnread<T>(
    refusals: { seen: boolean },
    read: () => Promise<T>,
  ): Promise<T | 'refused'> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof BlockReceiptsRefused) return 'refused';
      if (refusals.seen && error instanceof ChainError) return 'refused';
      throw error;
    }
  }

  /**
   * One eth_getBlockReceipts answers every receipt of the block, logs and all: worth it for two
   * of ours or more that make up an eighth of the block at least (a provider bills it as dozens
   * of single receipts, and a full block's receipts are megabytes).
   */
  private blockReceiptsPay(block: BlockHeader, wanted: number): boolean {
    if (wanted < 2 || wanted * 8 < block.transactionHashes.length) return false;
    return Date.now() >= this.blockReceiptsUnsupportedUntil;
  }

  /** By the block's hash (EIP-1898): the receipts of the block read, never of another at its height. */
  private async blockReceipts(
    block: BlockHeader,
    txHashes: string[],
    refusals: { seen: boolean },
  ): Promise<Map<string, BlockReceipt> | null | 'unsupported'> {
    return this.rpc.call('eth_getBlockReceipts', async (provider) => {
      let raw: unknown;
      try {
        raw = await provider.send('eth_getBlockReceipts', [block.hash]);
      } catch (error) {
        // Invalid params: a node that takes a block number only (the hash is the one parameter).
        if (!isUnsupportedMethod(error) && nodeErrorOf(error)?.code !== -32602) throw error;
        // Asked again later: a node upgraded, or another URL of the network, may have it.
        this.blockReceiptsUnsupportedUntil = Date.now() + BLOCK_RECEIPTS_RETRY_MS;
        return 'unsupported';
      }
      try {
        return receiptsOfBlock(raw, block, txHashes, this.network);
      } catch (error) {
        if (error instanceof BlockReceiptsRefused) refusals.seen = true;
        throw error;
      }
    });
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return new ChainError(kind, message, this.network.name);
  }
}
