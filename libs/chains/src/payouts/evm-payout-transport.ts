import {
  getAddress,
  decodeRlp,
  Interface,
  JsonRpcProvider,
  keccak256,
  Signature,
  toQuantity,
  Transaction,
  verifyAuthorization,
  Wallet,
} from 'ethers';
import { isValidAddress } from '../hd/addresses';
import { EvmRpc } from '../adapters/evm/evm-rpc';
import { checkedTransactionHash } from '../adapters/evm/evm-transaction-status';
import { NetworkConfig } from '../networks/network.types';
import { ChainError } from '../rpc/chain-error';
import { RetryOptions } from '../rpc/retry';
import { classifyBroadcastError, nodeErrorOf } from './evm-broadcast-errors';
import {
  BlockHeader,
  BlockReceipt,
  BlockReceiptsRefused,
  parseBlockHeader,
  parseReceipt,
  receiptInBlock,
  receiptsOfBlock,
} from './evm-block-receipts';
import { HotWalletKey } from './hot-wallet-key';
import { NonceProof, NonceProofHints, NonceProofStore } from './nonce-proofs';
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

export interface EthersPayoutTransportOptions {
  retry?: RetryOptions;
  /** Where proofs of nonce consumers outlive the process (PostgresNonceProofs); memory only without. */
  proofs?: NonceProofStore;
}

const ERC20 = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
]);

const MAX_UINT256 = (1n << 256n) - 1n;
// EIP-7702 (as EIP-2): an authorization whose s is above half the curve order is invalid.
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
// A tip of zero would stay zero after any percentage bump of a replacement.
const MIN_PRIORITY_FEE = 1n;
// "method not found", "the method eth_maxPriorityFeePerGas does not exist/is not available".
const UNSUPPORTED_METHOD = /method .*(not found|not supported|not available|does not exist)/i;
// Gas estimates are for the state now. A recipient whose balance is emptied before the transfer
// is mined (an exchange's deposit address, swept) costs about 17k gas more (a storage slot
// written from zero), more than a quarter of a 41k USDT transfer; a token upgrade costs more too.
// Unused gas is not paid: the limit only has to be covered by the wallet's native balance.
const GAS_MARGIN_PERCENT = 25n;
// Blocks read, body by body, when a node has no state deep enough to search a nonce by counts.
const MAX_BODY_SCAN = 512;
const MIN_GAS_MARGIN = 25_000n;
// Fields of a signed transaction's RLP list, by EIP-2718 type (0: legacy, no type byte).
const SIGNED_FIELDS: Record<number, number> = { 0: 9, 1: 11, 2: 12, 3: 14, 4: 13 };
const HEX_BYTES = /^0x([0-9a-fA-F]{2})+$/;
// A node that answered "method not found" to eth_getBlockReceipts is asked again after this long.
const BLOCK_RECEIPTS_RETRY_MS = 10 * 60_000;
// A plain value transfer to an account without code costs exactly this much, on every EVM chain.
const CANCEL_GAS_LIMIT = 21_000n;

/** EvmPayoutTransport over ethers 6, with the RPC behaviour of EvmChainAdapter (EvmRpc). */
export class EthersPayoutTransport implements EvmPayoutTransport {
  private readonly wallets = new WeakMap<HotWalletKey, Wallet>();
  private readonly consumerHints = new NonceProofHints();
  readonly family = 'EVM' as const;
  private readonly rpc: EvmRpc;
  private readonly proofs: NonceProofStore | undefined;
  /** Until when eth_getBlockReceipts is taken as missing ("method not found"): receipts one by one. */
  private blockReceiptsUnsupportedUntil = 0;

  constructor(
    readonly network: NetworkConfig,
    options: EthersPayoutTransportOptions = {},
  ) {
    this.rpc = new EvmRpc(network, options.retry);
    this.proofs = options.proofs;
  }

  async balances(address: string, tokenContract: string): Promise<WalletBalances> {
    const owner = this.checkedAddress(address, 'address');
    const token = this.checkedAddress(tokenContract, 'tokenContract');
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
    const owner = this.checkedAddress(address, 'address');
    const token = this.checkedAddress(tokenContract, 'tokenContract');
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

  /**
   * Mined (receipt) or pending (in the node's pool) or unknown, all read from one node: the raw
   * receipt once (status, block and fee from the same answer), then that node's head.
   */
  async lookup(txHash: string): Promise<TransactionLookup> {
    const hash = checkedTransactionHash(txHash, this.network.name);
    return this.rpc.call('eth_getTransactionReceipt', async (provider) => {
      const receipt = parseReceipt(
        await provider.send('eth_getTransactionReceipt', [hash]),
        this.network.name,
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
      if (read !== 'unsupported' && read !== 'refused') return read;
    }
    const found = new Map<string, BlockReceipt>();
    for (const txHash of txHashes) {
      const receipt = await this.rpc.call('eth_getTransactionReceipt', async (provider) =>
        parseReceipt(await provider.send('eth_getTransactionReceipt', [txHash]), this.network.name),
      );
      const inBlock = receiptInBlock(receipt, block, txHash);
      // Not there, or in another block on this node's view: this block is not read.
      if (!inBlock) return null;
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
        if (!this.isUnsupportedMethod(error) && nodeErrorOf(error)?.code !== -32602) throw error;
        // Asked again later: a node upgraded, or another URL of the network, may have it.
        this.blockReceiptsUnsupportedUntil = Date.now() + BLOCK_RECEIPTS_RETRY_MS;
        return 'unsupported';
      }
      try {
        return receiptsOfBlock(raw, block, txHashes, this.network.name);
      } catch (error) {
        if (error instanceof BlockReceiptsRefused) refusals.seen = true;
        throw error;
      }
    });
  }

  /** maxFeePerGas = 2 * base fee + tip: still valid after six full blocks of +12.5 % base fee. */
  async suggestFees(): Promise<EvmFees> {
    return this.rpc.call('eth_maxPriorityFeePerGas', async (provider) => {
      const block = await provider.getBlock('latest');
      const baseFee = block?.baseFeePerGas;
      if (baseFee === null || baseFee === undefined) {
        throw this.error('permanent', 'the latest block has no base fee (no EIP-1559)');
      }
      const suggested = await this.priorityFee(provider);
      const maxPriorityFeePerGas = suggested > MIN_PRIORITY_FEE ? suggested : MIN_PRIORITY_FEE;
      return { maxFeePerGas: 2n * baseFee + maxPriorityFeePerGas, maxPriorityFeePerGas };
    });
  }

  async estimateTransferGas(from: string, order: TokenTransferOrder): Promise<bigint> {
    const sender = this.checkedAddress(from, 'from');
    const { to, data } = this.transferCall(order);
    // Against the latest block, not the pending one nodes default to: a pending transfer to the
    // same recipient makes its balance non-zero there and the estimate 17k gas too low, should
    // that transfer be replaced or dropped.
    const estimate = await this.rpc.call('eth_estimateGas', async (provider) =>
      BigInt(
        (await provider.send('eth_estimateGas', [{ from: sender, to, data }, 'latest'])) as string,
      ),
    );
    const margin = (estimate * GAS_MARGIN_PERCENT + 99n) / 100n;
    return estimate + (margin > MIN_GAS_MARGIN ? margin : MIN_GAS_MARGIN);
  }

  async transactionCount(
    address: string,
    blockTag: number | 'latest' | 'pending',
  ): Promise<number> {
    const owner = this.checkedAddress(address, 'address');
    if (typeof blockTag === 'number' && (!Number.isSafeInteger(blockTag) || blockTag < 0)) {
      throw this.error('permanent', `blockTag must be a whole number >= 0, got ${blockTag}`);
    }
    return this.rpc.call('eth_getTransactionCount', (provider) =>
      provider.getTransactionCount(owner, blockTag),
    );
  }

  /**
   * Counts at numbered blocks are the same on every node that has the block (a node that lacks
   * it answers an error), so the search cannot be misled by a lagging backend, only stopped. The
   * proof itself is the block: it must hold the wallet's transaction with this nonce, or an
   * EIP-7702 authorization of it that the counts prove was applied there. A proof, once made, is
   * stored (when a store is given) and used again while its block stands.
   */
  async nonceConsumer(address: string, nonce: number): Promise<NonceConsumer | null> {
    const owner = this.checkedAddress(address, 'address').toLowerCase();
    const hintKey = `${owner}:${nonce}`;
    const known =
      this.consumerHints.get(hintKey) ??
      (await this.proofs?.find(this.network.name, owner, nonce)) ??
      undefined;
    const proof = await this.consumerProof(owner, nonce, known);
    if (!proof) return null;
    const after = await this.headBlockNumber();
    if (after < proof.blockNumber) return null;
    const { txHash, blockNumber, blockHash } = proof;
    const confirmations = after - blockNumber + 1;
    const replaces =
      known !== undefined && (known.blockHash !== proof.blockHash || known.txHash !== proof.txHash);
    // A known proof gives way only to a confirmed one: a proof drawn from a backend on a short
    // side fork is used this tick (too shallow to act on) but replaces nothing (review r4, F4).
    if (!replaces || confirmations >= this.network.confirmations) {
      if (known === undefined || replaces) await this.proofs?.save(this.network.name, proof);
      this.consumerHints.set(hintKey, proof);
    }
    return { txHash, blockNumber, blockHash, confirmations };
  }

  /**
   * A proof made earlier (by this process, or stored by any) holds while its block is still the
   * chain's at that height: the same hash is the same transactions on the same parent. It is
   * needed: a proof waits for its confirmations (128 on Polygon), and by then a pruned node has
   * no state left that deep to search with. Otherwise a search by counts; where a node has no
   * state at some block, the block bodies below the last block known to have used the nonce,
   * where only the wallet's own transactions prove anything.
   */
  private async consumerProof(
    owner: string,
    nonce: number,
    known: NonceProof | undefined,
  ): Promise<NonceProof | null> {
    if (known !== undefined) {
      const hash = await this.blockHashAt(known.blockNumber);
      if (hash === known.blockHash) return known;
      // Another block at that height (or none): not used this tick, never forgotten. One read is
      // one backend's word (behind a load balancer, one may sit on a short side fork): no proof
      // of a reorg. Kept, it is checked again next tick; a real reorg's new proof, found by the
      // search below, replaces it (`save` upserts), and a proof whose block is not the chain's
      // is never used. Forgotten, a pruned node could not make it again (review r4, F4).
    }
    const head = await this.headBlockNumber();
    const countAt = (block: number) => this.transactionCount(owner, block);
    if ((await countAt(head)) <= nonce) return null;
    // The lowest block known to have used the nonce, kept as the search goes: a node without
    // state further down leaves the bodies below it to read.
    const search = { used: head };
    try {
      await this.firstBlockPastNonce(countAt, nonce, search);
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      return this.scanBodiesForNonce(owner, nonce, search.used);
    }
    return this.consumerIn(search.used, owner, nonce, true);
  }

  /**
   * The wallet's count before and after the block, read by hash (EIP-1898): which authorization
   * of the block took the nonce, if one did. A type-4 transaction is mined with its invalid
   * authorizations skipped (another chain's id, a nonce the wallet has not reached or has passed):
   * being in the block proves nothing alone, and the counts by number may come from another
   * fork than the block read. Null where a count cannot be read.
   */
  private async countsAround(
    owner: string,
    block: { hash: string; parentHash: string },
  ): Promise<{ before: number; after: number } | null> {
    const countBy = (blockHash: string) =>
      this.rpc.call('eth_getTransactionCount', async (provider) =>
        Number(
          (await provider.send('eth_getTransactionCount', [
            owner,
            { blockHash, requireCanonical: true },
          ])) as string,
        ),
      );
    try {
      return { before: await countBy(block.parentHash), after: await countBy(block.hash) };
    } catch (error) {
      if (error instanceof ChainError) return null;
      throw error;
    }
  }

  /** The hash of the chain's block at `number` (lowercase), null where the node has none. */
  private async blockHashAt(number: number): Promise<string | null> {
    const block = await this.rpc.call('eth_getBlockByNumber', async (provider) => {
      const answer: unknown = await provider.send('eth_getBlockByNumber', [
        toQuantity(number),
        false,
      ]);
      return answer as { number?: string; hash?: string } | null;
    });
    if (!block || typeof block.hash !== 'string') return null;
    if (Number(block.number) !== number) {
      throw this.error('transient', `eth_getBlockByNumber: asked for ${number}, got another block`);
    }
    return block.hash.toLowerCase();
  }

  /**
   * Downwards in doubling steps (recent state first: pruned nodes keep only recent blocks'
   * state), then a binary search for the first block whose count passes the nonce.
   */
  private async firstBlockPastNonce(
    countAt: (block: number) => Promise<number>,
    nonce: number,
    search: { used: number },
  ): Promise<void> {
    let unused = -1;
    for (let step = 1; search.used > 0; step *= 2) {
      const candidate = Math.max(0, search.used - step);
      if ((await countAt(candidate)) > nonce) search.used = candidate;
      else {
        unused = candidate;
        break;
      }
    }
    while (search.used - unused > 1) {
      const middle = Math.floor((search.used + unused) / 2);
      if ((await countAt(middle)) > nonce) search.used = middle;
      else unused = middle;
    }
  }

  /**
   * The wallet's own transaction with `nonce` in the bodies of the blocks from `from` down. No
   * count proves which of these blocks used the nonce, so an authorization found here proves
   * nothing: a copy of one signed for another chain, or replayed, is mined as well.
   */
  private async scanBodiesForNonce(
    owner: string,
    nonce: number,
    from: number,
  ): Promise<NonceProof | null> {
    for (let number = from; number >= 0 && number > from - MAX_BODY_SCAN; number--) {
      const found = await this.consumerIn(number, owner, nonce, false);
      if (found) return found;
    }
    return null;
  }

  /**
   * `owner`'s transaction with `nonce` in block `number`; or else, when `authorizations` (the
   * counts said this block used the nonce), the transaction whose authorization took it, as the
   * counts around the block read by its hash confirm. Null if neither (or the block is unknown).
   */
  private async consumerIn(
    number: number,
    owner: string,
    nonce: number,
    authorizations: boolean,
  ): Promise<NonceProof | null> {
    const block = await this.rpc.call('eth_getBlockByNumber', async (provider) => {
      const answer: unknown = await provider.send('eth_getBlockByNumber', [
        toQuantity(number),
        true,
      ]);
      return answer as {
        number?: string;
        hash?: string;
        parentHash?: string;
        transactions?: unknown[];
      } | null;
    });
    if (!block || !Array.isArray(block.transactions)) return null;
    if (Number(block.number) !== number) {
      throw this.error('transient', `eth_getBlockByNumber: asked for ${number}, got another block`);
    }
    const blockHash = String(block.hash).toLowerCase();
    const parentHash = String(block.parentHash).toLowerCase();
    const proof = (txHash: string, byAuthorization: boolean): NonceProof => ({
      address: owner,
      nonce,
      txHash: checkedTransactionHash(txHash, this.network.name),
      blockNumber: number,
      blockHash,
      byAuthorization,
    });
    const transactions = block.transactions as BlockTransaction[];
    for (const transaction of transactions) {
      if (
        typeof transaction.from === 'string' &&
        transaction.from.toLowerCase() === owner &&
        Number(transaction.nonce) === nonce &&
        typeof transaction.hash === 'string'
      ) {
        return proof(transaction.hash, false);
      }
    }
    if (!authorizations) return null;
    // Or an EIP-7702 authorization the owner signed with this nonce, in anyone's type-4
    // transaction: applied, it takes the owner's nonce as a transaction of its own would.
    const counts = await this.countsAround(owner, { hash: blockHash, parentHash });
    if (!counts || counts.before > nonce || nonce >= counts.after) return null;
    const txHash = authorizationConsumer(
      transactions,
      owner,
      nonce,
      counts.before,
      BigInt(this.network.chainId),
    );
    // The counts said this block used the nonce and the block says otherwise: two views of the
    // chain in one search (a reorg, or a backend on another fork). No proof; look again later.
    return txHash === null ? null : proof(txHash, true);
  }

  headBlockNumber(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  /**
   * Signs locally what Wallet.signTransaction would (a type 2 transaction), synchronously: the
   * caller signs inside a database transaction that holds the wallet's nonce row.
   */
  sign(
    key: HotWalletKey,
    order: TokenTransferOrder,
    params: { nonce: number; fees: EvmFees; gasLimit: bigint },
  ): SignedTransfer {
    const wallet = this.walletOf(key);
    const { nonce, fees, gasLimit } = params;
    checkSigningParams(nonce, fees, gasLimit);
    const transaction = Transaction.from({
      type: 2,
      chainId: this.network.chainId,
      nonce,
      ...this.transferCall(order),
      value: 0n,
      gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      accessList: [],
    });
    return {
      ...signedEnvelope(transaction, wallet),
      nonce,
      fees: { ...fees },
      gasLimit,
      expiresAt: null,
    };
  }

  /**
   * Local: a zero-value send from the key's wallet to itself, no data, 21000 gas. Mined with a
   * payout's nonce, it proves that no transfer signed with that nonce can ever be mined.
   */
  signCancel(key: HotWalletKey, params: { nonce: number; fees: EvmFees }): SignedTransfer {
    const wallet = this.walletOf(key);
    const { nonce, fees } = params;
    checkSigningParams(nonce, fees, CANCEL_GAS_LIMIT);
    const transaction = Transaction.from({
      type: 2,
      chainId: this.network.chainId,
      nonce,
      to: wallet.address,
      data: '0x',
      value: 0n,
      gasLimit: CANCEL_GAS_LIMIT,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      accessList: [],
    });
    return {
      ...signedEnvelope(transaction, wallet),
      nonce,
      fees: { ...fees },
      gasLimit: CANCEL_GAS_LIMIT,
      expiresAt: null,
    };
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  /** The node's tip suggestion; nodes without eth_maxPriorityFeePerGas get ethers' fee data. */
  private async priorityFee(provider: JsonRpcProvider): Promise<bigint> {
    try {
      return BigInt((await provider.send('eth_maxPriorityFeePerGas', [])) as string);
    } catch (error) {
      if (!this.isUnsupportedMethod(error)) throw error;
      return (await provider.getFeeData()).maxPriorityFeePerGas ?? MIN_PRIORITY_FEE;
    }
  }

  private isUnsupportedMethod(error: unknown): boolean {
    if ((error as { code?: unknown } | null)?.code === 'UNSUPPORTED_OPERATION') return true;
    const nodeError = nodeErrorOf(error);
    return nodeError?.code === -32601 || UNSUPPORTED_METHOD.test(nodeError?.message ?? '');
  }

  private transferCall(order: TokenTransferOrder): { to: string; data: string } {
    const to = this.checkedAddress(order.tokenContract, 'tokenContract');
    const recipient = this.checkedAddress(order.to, 'to');
    const amount = order.amountBaseUnits;
    if (amount <= 0n || amount > MAX_UINT256) {
      throw this.error('permanent', `amount ${amount} is not a positive uint256`);
    }
    return { to, data: ERC20.encodeFunctionData('transfer', [recipient, amount]) };
  }

  /** The key's wallet, checked against the address it is configured with. */
  /**
   * The key's signer, checked against its address once per key object: building a Wallet derives
   * the public key, a few milliseconds that every signature would otherwise pay again while the
   * hot wallet's nonce lock is held.
   */
  private walletOf(key: HotWalletKey): Wallet {
    const known = this.wallets.get(key);
    if (known) return known;
    const wallet = this.checkedWallet(key);
    this.wallets.set(key, wallet);
    return wallet;
  }

  private checkedWallet(key: HotWalletKey): Wallet {
    let wallet: Wallet;
    try {
      wallet = new Wallet(key.privateKey());
    } catch {
      // Neither the library's message nor the error as cause: either may quote the key.
      throw new Error(`${this.network.name}: the hot wallet key is not a valid private key.`);
    }
    if (!isValidAddress('EVM', key.address) || getAddress(key.address) !== wallet.address) {
      throw new Error(
        `${this.network.name}: the hot wallet key does not belong to ${JSON.stringify(key.address)}.`,
      );
    }
    return wallet;
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

  private checkedAddress(address: string, name: string): string {
    if (!isValidAddress('EVM', address)) {
      throw this.error('permanent', `${name} ${JSON.stringify(address)} is not an EVM address`);
    }
    return getAddress(address);
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return new ChainError(kind, message, this.network.name);
  }
}

/**
 * Signs and serializes once: the hash is the keccak of those bytes (ethers' getters would
 * serialize the transaction again for each).
 */
function signedEnvelope(
  transaction: Transaction,
  wallet: Wallet,
): { txHash: string; rawTransaction: string } {
  transaction.signature = wallet.signingKey.sign(transaction.unsignedHash);
  const rawTransaction = transaction.serialized;
  return { txHash: keccak256(rawTransaction), rawTransaction };
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

/** A transaction of a block read with its bodies (eth_getBlockByNumber, true). */
interface BlockTransaction {
  hash?: string;
  from?: string;
  nonce?: string;
  authorizationList?: unknown;
}

/**
 * The transaction whose authorization took `owner`'s `nonce`, found by replaying the wallet's
 * count through the block from `countBefore` (its count at the parent): a transaction the wallet
 * sends takes its own nonce first (EIP-7702: before its authorization list is processed), then
 * each valid authorization of the wallet's with the count's current value takes one. The first
 * authorization carrying `nonce` need not be the one applied: one mined while the wallet's count
 * was still below it is skipped, and a copy further on may apply once the count gets there.
 */
export function authorizationConsumer(
  transactions: BlockTransaction[],
  owner: string,
  nonce: number,
  countBefore: number,
  chainId: bigint,
): string | null {
  let next = countBefore;
  for (const transaction of transactions) {
    if (typeof transaction.from === 'string' && transaction.from.toLowerCase() === owner) {
      next = Number(transaction.nonce) + 1;
    }
    if (next > nonce) return null;
    if (!Array.isArray(transaction.authorizationList)) continue;
    for (const authorization of transaction.authorizationList) {
      if (!authorizedBy(authorization, owner, next, chainId)) continue;
      if (next === nonce && typeof transaction.hash === 'string') return transaction.hash;
      next += 1;
    }
  }
  return null;
}

function checkSigningParams(nonce: number, fees: EvmFees, gasLimit: bigint): void {
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new Error(`Invalid nonce ${nonce}.`);
  if (gasLimit <= 0n) throw new Error(`Invalid gas limit ${gasLimit}.`);
  if (fees.maxPriorityFeePerGas < 0n || fees.maxFeePerGas < fees.maxPriorityFeePerGas) {
    throw new Error(
      `Invalid fees: maxFeePerGas ${fees.maxFeePerGas}, maxPriorityFeePerGas ${fees.maxPriorityFeePerGas}.`,
    );
  }
}

/**
 * Whether an authorization of a block's type-4 transaction is `owner`'s (its signature recovers
 * to it: the node's `authority` field, if any, is not trusted), with `nonce`, and valid on this
 * chain: signed for its id or for any chain (0). One signed for another chain is skipped here.
 */
function authorizedBy(
  authorization: unknown,
  owner: string,
  nonce: number,
  chainId: bigint,
): boolean {
  const entry = authorization as Record<string, unknown> | null;
  if (typeof entry !== 'object' || entry === null || Number(entry.nonce) !== nonce) return false;
  try {
    const signedFor = BigInt(String(entry.chainId));
    if (signedFor !== 0n && signedFor !== chainId) return false;
    if (BigInt(String(entry.s)) > SECP256K1_HALF_N) return false;
    const signer = verifyAuthorization(
      {
        address: String(entry.address),
        nonce: BigInt(String(entry.nonce)),
        chainId: signedFor,
      },
      Signature.from({
        r: String(entry.r),
        s: String(entry.s),
        yParity: Number(entry.yParity ?? entry.v) as 0 | 1,
      }),
    );
    return signer.toLowerCase() === owner;
  } catch {
    return false;
  }
}
