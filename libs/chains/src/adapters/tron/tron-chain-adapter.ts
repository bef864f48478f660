import { isValidAddress } from '../../hd/addresses';
import { deriveTronAddress } from '../../hd/derivation';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError, NotYetError } from '../../rpc/chain-error';
import { BlockLink, ChainAdapter, TokenTransfer, TransactionStatus } from '../chain-adapter';
import { uint8Decimals } from '../token-decimals';
import { decodeTransferLog, DecodedTransfer, toLogAddress } from './trc20-transfer-log';
import {
  checkedTransactionId,
  readBlock,
  readHead,
  readHeadBlockNumber,
  readTransactionStatus,
  tronError,
} from './tron-chain-reads';
import { TronNodeClient, TronNodeClientOptions } from './tron-node-client';
import { parseConstantWord, parseTransactionInfos, TronBlock } from './tron-responses';

// TRON's HTTP API has no log filter over a block range: a scan costs one request per block, plus
// one per block holding a watched transfer, plus the head. 20 blocks is a minute of chain (3 s
// blocks); with at most SCAN_CONCURRENCY requests in flight the bursts stay small for TronGrid's
// per-second rate limits, and a failed scan has little to redo.
const MAX_SCAN_RANGE = 20;
const SCAN_CONCURRENCY = 4;
// A constant call needs a caller; the zero address is what tronweb uses without a default one.
const CONSTANT_CALLER = '41' + '00'.repeat(20);

interface FoundTransfer extends DecodedTransfer {
  transactionId: string;
  logIndex: number;
  tokenContract: string;
}

/** Deposit detection on TRON through a java-tron full node's HTTP API (TronGrid or our own). */
export class TronChainAdapter implements ChainAdapter {
  readonly maxScanRange = MAX_SCAN_RANGE;
  private readonly node: TronNodeClient;

  constructor(
    readonly network: NetworkConfig,
    options: TronNodeClientOptions = {},
  ) {
    this.node = new TronNodeClient(network, options);
  }

  /** Base58 T... only: tronweb's isAddress also takes 41-prefixed hex, which payers never use. */
  isValidAddress(address: string): boolean {
    return isValidAddress('TRON', address);
  }

  deriveAddress(xpub: string, index: number): string {
    return deriveTronAddress(xpub, index);
  }

  async getHeadBlockNumber(): Promise<number> {
    return readHeadBlockNumber(this.node, this.network.name);
  }

  async getBlockHash(blockNumber: number): Promise<string | null> {
    return (await this.getBlockLink(blockNumber))?.hash ?? null;
  }

  async getBlockLink(blockNumber: number): Promise<BlockLink | null> {
    this.checkBlockNumber(blockNumber);
    const block = await this.getBlock(blockNumber);
    return block && { hash: block.blockId, parentHash: block.parentHash };
  }

  async scanTransfers(
    fromBlock: number,
    toBlock: number,
    tokenContracts: string[],
  ): Promise<TokenTransfer[]> {
    this.checkBlockNumber(fromBlock);
    this.checkBlockNumber(toBlock);
    if (toBlock - fromBlock + 1 > this.maxScanRange) {
      throw this.error(
        'permanent',
        `range ${fromBlock}-${toBlock} exceeds ${this.maxScanRange} blocks`,
      );
    }
    if (fromBlock > toBlock || tokenContracts.length === 0) return [];
    const contractsByLogAddress = new Map(
      tokenContracts.map((contract) => [this.toLogAddress(contract), contract]),
    );
    // The node answers [] for blocks it does not have yet: without this check a cursor would
    // move past blocks that were never read. Every read of the scan then goes to the node that
    // answered the head: failed over mid-scan to a node that is behind, a block it does not have
    // would read as empty. A failure there fails the scan, and the next scan starts at the next
    // URL (its head read, then its blocks).
    const { number: head, source } = await readHead(this.node, this.network.name);
    if (toBlock > head) {
      throw new NotYetError(
        `TRON block ${toBlock} is beyond the head (${head})`,
        this.network.name,
      );
    }
    const blockNumbers = Array.from(
      { length: toBlock - fromBlock + 1 },
      (_, offset) => fromBlock + offset,
    );
    try {
      const perBlock = await mapWithConcurrency(blockNumbers, SCAN_CONCURRENCY, (blockNumber) =>
        this.scanBlock(blockNumber, contractsByLogAddress, source),
      );
      return perBlock.flat();
    } catch (error) {
      this.node.avoid(source);
      throw error;
    }
  }

  async getTransactionStatus(txHash: string): Promise<TransactionStatus | null> {
    const transactionId = checkedTransactionId(txHash, this.network.name);
    return readTransactionStatus(this.node, transactionId, this.network.name);
  }

  async getTokenDecimals(contract: string): Promise<number> {
    const contractHex = `41${this.toLogAddress(contract)}`;
    const word = await this.node.request(
      'wallet/triggerconstantcontract',
      {
        owner_address: CONSTANT_CALLER,
        contract_address: contractHex,
        function_selector: 'decimals()',
        parameter: '',
        visible: false,
      },
      (value) => parseConstantWord(value, 'decimals()'),
    );
    const decimals = uint8Decimals(word);
    if (decimals === undefined) {
      throw this.error('permanent', `decimals() of ${contract} returned ${word}, not a uint8`);
    }
    return decimals;
  }

  preferNextProvider(): void {
    this.node.preferNext();
  }

  /** TRON nodes offer no head subscription: the watcher polls. */
  followHeads(): null {
    return null;
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own (axios uses Node's global agent).
  }

  /** One block's watched transfers, read from the node at position `source` only. */
  private async scanBlock(
    blockNumber: number,
    contractsByLogAddress: Map<string, string>,
    source: number,
  ): Promise<TokenTransfer[]> {
    const infos = await this.node.request(
      'wallet/gettransactioninfobyblocknum',
      { num: blockNumber },
      (value) => parseTransactionInfos(value, blockNumber),
      source,
    );
    // A node behind answers [] for a block it does not have, through a load-balanced URL even
    // after another backend answered a head above it: an empty answer counts only for a block
    // read as having no transactions.
    if (infos.length === 0) await this.requireEmptyBlock(blockNumber, source);
    const found: FoundTransfer[] = [];
    for (const info of infos.filter((transactionInfo) => transactionInfo.succeeded)) {
      info.logs.forEach((log, logIndex) => {
        const tokenContract = contractsByLogAddress.get(log.address);
        const transfer = tokenContract ? decodeTransferLog(log) : null;
        if (tokenContract && transfer) {
          found.push({ ...transfer, transactionId: info.id, logIndex, tokenContract });
        }
      });
    }
    if (found.length === 0) return [];
    return this.attachBlock(blockNumber, found, source);
  }

  private async requireEmptyBlock(blockNumber: number, source: number): Promise<void> {
    const block = await readBlock(this.node, blockNumber, source);
    if (!block || block.transactionIds.length > 0) {
      throw new NotYetError(
        `TRON block ${blockNumber}: the node answered no transaction infos for it yet`,
        this.network.name,
      );
    }
  }

  /**
   * Transaction infos carry no block hash, so the block is read separately. Its transaction list
   * proves both reads saw the same block (a reorg in between fails the scan, to be retried) and
   * gives the transactions' order.
   */
  private async attachBlock(
    blockNumber: number,
    found: FoundTransfer[],
    source: number,
  ): Promise<TokenTransfer[]> {
    const block = await readBlock(this.node, blockNumber, source);
    const changed = this.error(
      'transient',
      `block ${blockNumber} changed while it was read (reorg?)`,
    );
    if (!block) throw changed;
    const positions = new Map(block.transactionIds.map((id, position) => [id, position]));
    const located = found.map((transfer) => {
      const position = positions.get(transfer.transactionId);
      if (position === undefined) throw changed;
      return { transfer, position };
    });
    located.sort((a, b) => a.position - b.position || a.transfer.logIndex - b.transfer.logIndex);
    return located.map(({ transfer }) => ({
      tokenContract: transfer.tokenContract,
      from: transfer.from,
      to: transfer.to,
      amountBaseUnits: transfer.amountBaseUnits,
      txHash: transfer.transactionId,
      logIndex: transfer.logIndex,
      blockNumber,
      blockHash: block.blockId,
    }));
  }

  private getBlock(blockNumber: number): Promise<TronBlock | null> {
    return readBlock(this.node, blockNumber);
  }

  private toLogAddress(contract: string): string {
    if (!isValidAddress('TRON', contract)) {
      throw this.error('permanent', `not a TRON token contract: ${JSON.stringify(contract)}`);
    }
    return toLogAddress(contract);
  }

  private checkBlockNumber(blockNumber: number): void {
    if (!Number.isSafeInteger(blockNumber) || blockNumber < 0) {
      throw this.error('permanent', `invalid block number ${blockNumber}`);
    }
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return tronError(kind, message, this.network.name);
  }
}

/** Runs `operation` over `items` with at most `limit` in flight; results keep the items' order. */
async function mapWithConcurrency<T, R>(
  items: T[],
  limit: number,
  operation: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    // After a failure the scan is lost anyway: stop sending requests for it.
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await operation(items[index]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
