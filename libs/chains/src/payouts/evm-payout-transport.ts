import { decodeRlp, keccak256 } from 'ethers';
import { EvmRpc } from '../adapters/evm/evm-rpc';
import { NetworkConfig } from '../networks/network.types';
import { ChainError } from '../rpc/chain-error';
import { RetryOptions } from '../rpc/retry';
import { classifyBroadcastError, nodeErrorOf } from './evm-broadcast-errors';
import { BlockHeader, BlockReceipt } from './evm-block-receipts';
import { EvmBlockReader } from './evm-block-reader';
import { ERC20 } from './evm-erc20-calls';
import { EvmFeeEstimates } from './evm-fee-estimates';
import { EvmNonceConsumers } from './evm-nonce-consumers';
import { checkedAddress } from './evm-payout-checks';
import { EvmTransferSigner } from './evm-transfer-signing';
import { HotWalletKey } from './hot-wallet-key';
import { NonceProofStore } from './nonce-proofs';
import {
  BroadcastResult,
  EvmFees,
  EvmPayoutTransport,
  NonceConsumer,
  SignedTransfer,
  TokenTransferOrder,
  TransactionLookup,
  WalletBalances,
  WalletStateAtBlock,
} from './payout-transport';

export { authorizationConsumer } from './evm-nonce-consumers';

export interface EthersPayoutTransportOptions {
  retry?: RetryOptions;
  /** Where proofs of nonce consumers outlive the process (PostgresNonceProofs); memory only without. */
  proofs?: NonceProofStore;
}

// Fields of a signed transaction's RLP list, by EIP-2718 type (0: legacy, no type byte).
const SIGNED_FIELDS: Record<number, number> = { 0: 9, 1: 11, 2: 12, 3: 14, 4: 13 };
const HEX_BYTES = /^0x([0-9a-fA-F]{2})+$/;

/**
 * EvmPayoutTransport over ethers 6, with the RPC behaviour of EvmChainAdapter (EvmRpc). Balances,
 * counts and broadcasts here; blocks and receipts in EvmBlockReader, fees in EvmFeeEstimates,
 * the nonce search in EvmNonceConsumers, signing in EvmTransferSigner.
 */
export class EthersPayoutTransport implements EvmPayoutTransport {
  readonly family = 'EVM' as const;
  private readonly rpc: EvmRpc;
  private readonly blocks: EvmBlockReader;
  private readonly fees: EvmFeeEstimates;
  private readonly nonces: EvmNonceConsumers;
  private readonly signer: EvmTransferSigner;

  constructor(
    readonly network: NetworkConfig,
    options: EthersPayoutTransportOptions = {},
  ) {
    this.rpc = new EvmRpc(network, options.retry);
    this.blocks = new EvmBlockReader(network, this.rpc);
    this.fees = new EvmFeeEstimates(network, this.rpc);
    this.nonces = new EvmNonceConsumers(network, this.rpc, options.proofs, this);
    this.signer = new EvmTransferSigner(network);
  }

  async balances(address: string, tokenContract: string): Promise<WalletBalances> {
    const owner = checkedAddress(address, 'address', this.network.name);
    const token = checkedAddress(tokenContract, 'tokenContract', this.network.name);
    const data = ERC20.encodeFunctionData('balanceOf', [owner]);
    const [tokenBalance, native] = await Promise.all([
      this.rpc.call('eth_call', async (provider) => {
        const result = await provider.call({ to: token, data });
        return ERC20.decodeFunctionResult('balanceOf', result)[0] as bigint;
      }),
      this.rpc.call('eth_getBalance', (provider) => provider.getBalance(owner)),
    ]);
    return { token: tokenBalance, native };
  }

  async walletStateAtBlock(address: string, tokenContract: string): Promise<WalletStateAtBlock> {
    const owner = checkedAddress(address, 'address', this.network.name);
    const token = checkedAddress(tokenContract, 'tokenContract', this.network.name);
    const data = ERC20.encodeFunctionData('balanceOf', [owner]);
    const blockNumber = await this.headBlockNumber();
    const [tokenBalance, native, minedCount] = await Promise.all([
      this.rpc.call('eth_call', async (provider) => {
        const result = await provider.call({ to: token, data, blockTag: blockNumber });
        return ERC20.decodeFunctionResult('balanceOf', result)[0] as bigint;
      }),
      this.rpc.call('eth_getBalance', (provider) => provider.getBalance(owner, blockNumber)),
      this.transactionCount(owner, blockNumber),
    ]);
    return { token: tokenBalance, native, minedCount, blockNumber };
  }

  /**
   * Sends the bytes; what the node answered is the result. Only a missing answer (timeout, node
   * down, 5xx, rate limit) is retried, with the same bytes, and then thrown as a ChainError.
   */
  async broadcast(rawTransaction: string): Promise<BroadcastResult> {
    const hash = this.hashOf(rawTransaction);
    return this.rpc.call('eth_sendRawTransaction', async (provider) => {
      let answer: unknown;
      try {
        answer = await provider.send('eth_sendRawTransaction', [rawTransaction]);
      } catch (error) {
        const nodeError = nodeErrorOf(error);
        const result = nodeError ? classifyBroadcastError(nodeError) : null;
        if (result) return result;
        throw error;
      }
      if (typeof answer !== 'string' || answer.toLowerCase() !== hash) {
        throw this.error('permanent', 'eth_sendRawTransaction: the node answered another hash');
      }
      return { kind: 'accepted' };
    });
  }

  lookup(txHash: string): Promise<TransactionLookup> {
    return this.blocks.lookup(txHash);
  }

  blockHeader(number: number): Promise<BlockHeader | null> {
    return this.blocks.blockHeader(number);
  }

  blockHeaderByHash(hash: string, number: number): Promise<BlockHeader | null> {
    return this.blocks.blockHeaderByHash(hash, number);
  }

  receiptsIn(block: BlockHeader, txHashes: string[]): Promise<Map<string, BlockReceipt> | null> {
    return this.blocks.receiptsIn(block, txHashes);
  }

  suggestFees(): Promise<EvmFees> {
    return this.fees.suggestFees();
  }

  estimateTransferGas(from: string, order: TokenTransferOrder): Promise<bigint> {
    return this.fees.estimateTransferGas(from, order);
  }

  async transactionCount(
    address: string,
    blockTag: number | 'latest' | 'pending',
  ): Promise<number> {
    const owner = checkedAddress(address, 'address', this.network.name);
    if (typeof blockTag === 'number' && (!Number.isSafeInteger(blockTag) || blockTag < 0)) {
      throw this.error('permanent', `blockTag must be a whole number >= 0, got ${blockTag}`);
    }
    return this.rpc.call('eth_getTransactionCount', (provider) =>
      provider.getTransactionCount(owner, blockTag),
    );
  }

  nonceConsumer(address: string, nonce: number): Promise<NonceConsumer | null> {
    return this.nonces.nonceConsumer(address, nonce);
  }

  headBlockNumber(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  sign(
    key: HotWalletKey,
    order: TokenTransferOrder,
    params: { nonce: number; fees: EvmFees; gasLimit: bigint },
  ): SignedTransfer {
    return this.signer.sign(key, order, params);
  }

  signCancel(key: HotWalletKey, params: { nonce: number; fees: EvmFees }): SignedTransfer {
    return this.signer.signCancel(key, params);
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  /**
   * A transaction's hash is the keccak of its bytes as sent (EIP-2718 envelopes and legacy ones
   * alike). The bytes are only checked to be a signed transaction's RLP (the fields of its type,
   * signature included), not decoded into one: that cost a tenth of a signature per broadcast.
   */
  private hashOf(rawTransaction: string): string {
    if (!isSignedTransaction(rawTransaction)) {
      throw this.error('permanent', 'not a signed transaction');
    }
    return keccak256(rawTransaction);
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return new ChainError(kind, message, this.network.name);
  }
}

/** Hex bytes that are one RLP list with a signed transaction's fields, typed or legacy. */
function isSignedTransaction(rawTransaction: string): boolean {
  if (!HEX_BYTES.test(rawTransaction)) return false;
  const type = parseInt(rawTransaction.slice(2, 4), 16);
  const typed = type < 0x7f;
  try {
    const fields = decodeRlp(typed ? `0x${rawTransaction.slice(4)}` : rawTransaction);
    return Array.isArray(fields) && fields.length === SIGNED_FIELDS[typed ? type : 0];
  } catch {
    return false;
  }
}
