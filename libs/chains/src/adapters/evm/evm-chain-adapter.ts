import { Contract, getAddress, JsonRpcProvider, toQuantity } from 'ethers';
import { isValidAddress } from '../../hd/addresses';
import { deriveEvmAddress } from '../../hd/derivation';
import { NetworkConfig } from '../../networks/network.types';
import { ChainError, NotYetError } from '../../rpc/chain-error';
import { RetryOptions } from '../../rpc/retry';
import {
  BlockLink,
  ChainAdapter,
  HeadListener,
  HeadsProblemListener,
  HeadSubscription,
  TokenTransfer,
  TransactionStatus,
} from '../chain-adapter';
import { uint8Decimals } from '../token-decimals';
import { RangeTooLargeError } from './evm-errors';
import { EvmRpc } from './evm-rpc';
import { InvalidBlockError, parseBlockLink } from './block-link';
import { bloomMayContain } from './logs-bloom';
import { EvmNewHeads } from './new-heads';
import { checkedTransactionHash, readTransactionStatus } from './evm-transaction-status';
import {
  compareTransfers,
  ChecksummedAddresses,
  decodeTransferLog,
  ERC20_TRANSFER_TOPIC,
  InvalidLogError,
  RawLog,
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

// Declared uint256, not uint8: ethers masks a uint8 result to its low byte, which would let a
// contract answering 262 read as 6. The whole word is checked instead (uint8Decimals).
const DECIMALS_ABI = ['function decimals() view returns (uint256)'];

/** ChainAdapter for EVM chains over JSON-RPC, failing over across the network's RPC URLs. */
export class EvmChainAdapter implements ChainAdapter {
  readonly maxScanRange = MAX_SCAN_RANGE;
  private readonly rpc: EvmRpc;

  constructor(
    readonly network: NetworkConfig,
    options: EvmChainAdapterOptions = {},
  ) {
    this.rpc = new EvmRpc(network, options.retry);
  }

  isValidAddress(address: string): boolean {
    return isValidAddress('EVM', address);
  }

  deriveAddress(xpub: string, index: number): string {
    return deriveEvmAddress(xpub, index);
  }

  async getHeadBlockNumber(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  async getBlockHash(blockNumber: number): Promise<string | null> {
    return (await this.getBlockLink(blockNumber))?.hash ?? null;
  }

  async getBlockLink(blockNumber: number): Promise<BlockLink | null> {
    this.assertBlockNumber(blockNumber, 'blockNumber');
    const raw = await this.rpc.call('eth_getBlockByNumber', (provider) =>
      provider.send('eth_getBlockByNumber', [toQuantity(blockNumber), false]),
    );
    try {
      return parseBlockLink(raw, blockNumber);
    } catch (error) {
      if (!(error instanceof InvalidBlockError)) throw error;
      throw new ChainError(
        'permanent',
        `eth_getBlockByNumber: ${error.message}`,
        this.network.name,
      );
    }
  }

  mayHoldTransfers(link: BlockLink, tokenContracts: string[]): boolean {
    if (link.logsBloom === undefined) return true;
    const bloom = link.logsBloom;
    return (
      bloomMayContain(bloom, [ERC20_TRANSFER_TOPIC]) &&
      tokenContracts.some((contract) => bloomMayContain(bloom, [contract]))
    );
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
    const hash = checkedTransactionHash(txHash, this.network.name);
    return this.rpc.call('eth_getTransactionReceipt', (provider) =>
      readTransactionStatus(provider, hash, this.network.name),
    );
  }

  async getTokenDecimals(contract: string): Promise<number> {
    if (!this.isValidAddress(contract)) {
      throw this.badArgument(`${JSON.stringify(contract)} is not an EVM address`);
    }
    const address = getAddress(contract);
    // An address without code answers "0x", which ethers refuses to decode (BAD_DATA): permanent.
    const word = await this.rpc.call('eth_call decimals()', async (provider) => {
      const token = new Contract(address, DECIMALS_ABI, provider);
      return (await token.getFunction('decimals').staticCall()) as bigint;
    });
    const decimals = uint8Decimals(word);
    if (decimals === undefined) {
      throw this.badArgument(`decimals() of ${address} returned ${word}, not a uint8`);
    }
    return decimals;
  }

  preferNextProvider(): void {
    this.rpc.preferNext();
  }

  followHeads(onHead: HeadListener, onProblem: HeadsProblemListener): HeadSubscription | null {
    const { wsUrl } = this.network;
    return wsUrl ? new EvmNewHeads(this.network, wsUrl, onHead, onProblem) : null;
  }

  /** Destroys the providers; every later call fails with a permanent ChainError. */
  async close(): Promise<void> {
    this.rpc.close();
  }

  private async scanRange(
    fromBlock: number,
    toBlock: number,
    contracts: string[],
  ): Promise<TokenTransfer[]> {
    try {
      const logs = await this.rpc.call(
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
  ): Promise<unknown> {
    // Nodes cut a toBlock beyond their head to the head without saying so. After a failover to a
    // node that lags behind, that would silently drop the newest blocks of the range, so ask the
    // same node for its head first (first: its head only grows before the getLogs is served).
    const head = await provider.getBlockNumber();
    if (head < toBlock) {
      throw new NotYetError(
        `eth_getLogs: block ${toBlock} is beyond the head ${head} of the node`,
        this.network.name,
      );
    }
    // The node's JSON as it is: decodeLogs checks and keeps only what a Transfer needs.
    return provider.send('eth_getLogs', [
      {
        address: contracts,
        topics: [ERC20_TRANSFER_TOPIC],
        fromBlock: toQuantity(fromBlock),
        toBlock: toQuantity(toBlock),
      },
    ]);
  }

  private decodeLogs(logs: unknown, contracts: string[]): TokenTransfer[] {
    // By lower case: one lookup per log rather than a checksum (a keccak hash) per log.
    const requested = new Map(contracts.map((contract) => [contract.toLowerCase(), contract]));
    const addresses = new ChecksummedAddresses();
    const transfers: TokenTransfer[] = [];
    try {
      if (!Array.isArray(logs)) throw new InvalidLogError('not a list of logs');
      for (const log of logs as RawLog[]) {
        if (log === null || typeof log !== 'object' || typeof log.address !== 'string') {
          throw new InvalidLogError('log without an address');
        }
        const contract = requested.get(log.address.toLowerCase());
        if (contract === undefined) {
          throw new InvalidLogError('log of a contract that was not asked for');
        }
        const transfer = decodeTransferLog(log, contract, addresses);
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

  private assertBlockNumber(value: number, name: string): void {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw this.badArgument(`${name} must be a whole number >= 0, got ${value}`);
    }
  }

  private badArgument(message: string): ChainError {
    return new ChainError('permanent', message, this.network.name);
  }
}
