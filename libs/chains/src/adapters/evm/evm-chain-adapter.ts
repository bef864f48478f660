import {
  FetchRequest,
  getAddress,
  JsonRpcProvider,
  Log,
  Network,
  TransactionReceipt,
} from 'ethers';
import { isValidAddress } from '../../hd/addresses';
import { deriveEvmAddress } from '../../hd/derivation';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError } from '../../rpc/chain-error';
import { DEFAULT_RETRY, RetryOptions, withRetry } from '../../rpc/retry';
import { ChainAdapter, TokenTransfer, TransactionStatus } from '../chain-adapter';
import { normalizeEvmError, RangeTooLargeError } from './evm-errors';
import {
  compareTransfers,
  decodeTransferLog,
  ERC20_TRANSFER_TOPIC,
  InvalidLogError,
} from './transfer-logs';

export { ERC20_TRANSFER_TOPIC } from './transfer-logs';

export interface EvmChainAdapterOptions {
  retry?: RetryOptions;
}

/*
 * 500 blocks per scan: public RPCs cap eth_getLogs anywhere from a few hundred blocks or 10,000
 * results (free tiers) to 10,000 blocks, and a small range keeps each answer small. That is
 * 1.7 hours of Ethereum, 17 minutes of Polygon and 2 minutes of Arbitrum, far more than a
 * watcher ever lags; a node with a tighter cap is handled by splitting the range.
 */
const MAX_SCAN_RANGE = 500;

// ethers waits 4 s between polls by default; tx.wait() on these providers should not.
const POLLING_INTERVAL_MS = 250;

const TX_HASH_FORMAT = /^0x[0-9a-fA-F]{64}$/;

/** ChainAdapter for EVM chains over JSON-RPC, failing over across the network's RPC URLs. */
export class EvmChainAdapter implements ChainAdapter {
  readonly maxScanRange = MAX_SCAN_RANGE;
  private readonly providers: JsonRpcProvider[];
  private readonly retry: RetryOptions;
  private closed = false;

  constructor(
    readonly network: NetworkConfig,
    options: EvmChainAdapterOptions = {},
  ) {
    if (network.chainFamily !== 'EVM') {
      throw new Error(`${network.name} is a ${network.chainFamily} network, not EVM.`);
    }
    if (network.rpcUrls.length === 0) throw new Error(`${network.name} has no RPC URLs.`);
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.providers = network.rpcUrls.map((url) => this.createProvider(url));
  }

  isValidAddress(address: string): boolean {
    return isValidAddress('EVM', address);
  }

  deriveAddress(xpub: string, index: number): string {
    return deriveEvmAddress(xpub, index);
  }

  async getHeadBlockNumber(): Promise<number> {
    return this.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  async getBlockHash(blockNumber: number): Promise<string | null> {
    this.assertBlockNumber(blockNumber, 'blockNumber');
    return this.call('eth_getBlockByNumber', async (provider) => {
      const block = await provider.getBlock(blockNumber);
      if (block === null) return null;
      if (block.hash === null || block.number !== blockNumber) {
        throw new ChainError('permanent', `the node returned another block`, this.network.name);
      }
      return block.hash.toLowerCase();
    });
  }

  async scanTransfers(
    fromBlock: number,
    toBlock: number,
    tokenContracts: string[],
  ): Promise<TokenTransfer[]> {
    this.assertBlockNumber(fromBlock, 'fromBlock');
    this.assertBlockNumber(toBlock, 'toBlock');
    if (fromBlock > toBlock) {
      throw this.badArgument(`fromBlock ${fromBlock} is after toBlock ${toBlock}`);
    }
    for (const contract of tokenContracts) {
      if (!this.isValidAddress(contract)) {
        throw this.badArgument(`${JSON.stringify(contract)} is not an EVM address`);
      }
    }
    // An empty address list would ask the node for the Transfer logs of every contract.
    if (tokenContracts.length === 0) return [];
    const contracts = [...new Set(tokenContracts.map((contract) => getAddress(contract)))];
    const transfers = await this.scanRange(fromBlock, toBlock, contracts);
    return transfers.sort(compareTransfers);
  }

  async getTransactionStatus(txHash: string): Promise<TransactionStatus | null> {
    if (!TX_HASH_FORMAT.test(txHash)) {
      throw this.badArgument(`${JSON.stringify(txHash)} is not a transaction hash (0x + 64 hex)`);
    }
    const hash = txHash.toLowerCase();
    return this.call('eth_getTransactionReceipt', async (provider) => {
      const receipt = await provider.getTransactionReceipt(hash);
      if (receipt === null) return null;
      // The head from the same node, after the receipt: it can only be at or past the receipt's
      // block there. A load balancer behind one URL may still answer from a lagging backend.
      const head = await provider.getBlockNumber();
      return this.toStatus(receipt, hash, head);
    });
  }

  /** Destroys the providers; every later call fails with a permanent ChainError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const provider of this.providers) provider.destroy();
  }

  private async scanRange(
    fromBlock: number,
    toBlock: number,
    contracts: string[],
  ): Promise<TokenTransfer[]> {
    try {
      const logs = await this.call(
        'eth_getLogs',
        (provider) => this.fetchLogs(provider, fromBlock, toBlock, contracts),
        true,
      );
      return this.decodeLogs(logs, contracts);
    } catch (error) {
      if (!(error instanceof RangeTooLargeError) || fromBlock === toBlock) throw error;
      // Halves, one after the other: a node that refuses a big range is usually a loaded one.
      const middle = Math.floor((fromBlock + toBlock) / 2);
      const lower = await this.scanRange(fromBlock, middle, contracts);
      const upper = await this.scanRange(middle + 1, toBlock, contracts);
      return [...lower, ...upper];
    }
  }

  private async fetchLogs(
    provider: JsonRpcProvider,
    fromBlock: number,
    toBlock: number,
    contracts: string[],
  ): Promise<Log[]> {
    // Nodes cut a toBlock beyond their head to the head without saying so. After a failover to a
    // node that lags behind, that would silently drop the newest blocks of the range, so ask the
    // same node for its head first (first: its head only grows before the getLogs is served).
    const head = await provider.getBlockNumber();
    if (head < toBlock) {
      throw new ChainError(
        'transient',
        `eth_getLogs: block ${toBlock} is beyond the head ${head} of the node`,
        this.network.name,
      );
    }
    return provider.getLogs({
      address: contracts,
      topics: [ERC20_TRANSFER_TOPIC],
      fromBlock,
      toBlock,
    });
  }

  private decodeLogs(logs: Log[], contracts: string[]): TokenTransfer[] {
    const requested = new Set(contracts);
    const transfers: TokenTransfer[] = [];
    try {
      for (const log of logs) {
        if (!requested.has(getAddress(log.address))) {
          throw new InvalidLogError('log of a contract that was not asked for');
        }
        const transfer = decodeTransferLog(log);
        if (transfer) transfers.push(transfer);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ChainError(
        'permanent',
        `eth_getLogs: invalid response (${reason})`,
        this.network.name,
      );
    }
    return transfers;
  }

  private toStatus(receipt: TransactionReceipt, hash: string, head: number): TransactionStatus {
    const invalid = (reason: string) =>
      new ChainError(
        'permanent',
        `eth_getTransactionReceipt: invalid response (${reason})`,
        this.network.name,
      );
    if (receipt.hash.toLowerCase() !== hash) throw invalid('receipt of another transaction');
    // Receipts have a status since Byzantium (2017); every supported network is past it.
    if (receipt.status !== 0 && receipt.status !== 1) throw invalid('receipt without a status');
    if (head < receipt.blockNumber) {
      throw new ChainError(
        'transient',
        `eth_getTransactionReceipt: block ${receipt.blockNumber} is beyond the head ${head} of the node`,
        this.network.name,
      );
    }
    return {
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash.toLowerCase(),
      succeeded: receipt.status === 1,
      confirmations: head - receipt.blockNumber + 1,
    };
  }

  /** One RPC call with retries; attempt i goes to RPC URL i mod n, so failures fail over. */
  private call<T>(
    method: string,
    operation: (provider: JsonRpcProvider) => Promise<T>,
    isLogQuery = false,
  ): Promise<T> {
    if (this.closed) {
      return Promise.reject(new ChainError('permanent', 'adapter closed', this.network.name));
    }
    const count = this.providers.length;
    return withRetry(
      async (attempt) => {
        const index = attempt % count;
        try {
          return await operation(this.providers[index]);
        } catch (error) {
          // The position, never the URL: hosted RPC URLs carry API keys.
          const context = count > 1 ? `${method} (RPC ${index + 1} of ${count})` : method;
          throw normalizeEvmError(error, this.network.name, context, isLogQuery);
        }
      },
      (error) => normalizeEvmError(error, this.network.name, method, isLogQuery),
      this.retry,
      `${this.network.name} ${method}`,
    );
  }

  private createProvider(url: string): JsonRpcProvider {
    const request = new FetchRequest(url);
    // withRetry owns retries and timeouts: ethers would otherwise retry a 429 up to 12 times and
    // let a hung request run for 5 minutes after withRetry gave up on it.
    request.retryFunc = async () => false;
    request.timeout = this.retry.timeoutMs;
    const network = Network.from(this.network.chainId);
    return new JsonRpcProvider(request, network, {
      // A static network: otherwise a provider whose node is down retries detection forever.
      staticNetwork: network,
      // ethers caches identical calls for 250 ms, which returns a stale head right after a block.
      cacheTimeout: -1,
      pollingInterval: POLLING_INTERVAL_MS,
      // One request per call: some public RPCs reject or cap batches, and a failed batch would
      // fail calls that have nothing to do with the failure.
      batchMaxCount: 1,
    });
  }

  private assertBlockNumber(value: number, name: string): void {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw this.badArgument(`${name} must be a whole number >= 0, got ${value}`);
    }
  }

  private badArgument(message: string): ChainError {
    return new ChainError('permanent', message, this.network.name);
  }
}
