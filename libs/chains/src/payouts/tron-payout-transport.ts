import { AbiCoder, id } from 'ethers';
import { ChainError } from '../rpc/chain-error';
import { TronWeb, utils } from 'tronweb';
import { isValidAddress } from '../hd/addresses';
import {
  checkedTransactionId,
  readMinedTransaction,
  tronError,
} from '../adapters/tron/tron-chain-reads';
import { TronNodeClient, TronNodeClientOptions } from '../adapters/tron/tron-node-client';
import { NetworkConfig } from '../networks/network.types';
import { HotWalletKey } from './hot-wallet-key';
import {
  BroadcastResult,
  SignedTransfer,
  TokenTransferOrder,
  TransactionLookup,
  TronPayoutTransport,
  WalletBalances,
} from './payout-transport';
import { classifyTronBroadcast } from './tron-broadcast-result';
import {
  parseAccountBalance,
  MAX_TRANSACTION_LIFETIME_MS,
  parseSignedWindow,
  parseTimedBlock,
  parseTransactionKnown,
  parseUint256Result,
  parseUnsignedTransfer,
  RequestedCall,
  UnsignedTronTransaction,
} from './tron-payout-responses';

const TRANSFER_SIGNATURE = 'transfer(address,uint256)';
const BALANCE_OF_SIGNATURE = 'balanceOf(address)';
const TRANSFER_SELECTOR = id(TRANSFER_SIGNATURE).slice(2, 10);
const MAX_UINT256 = (1n << 256n) - 1n;
const PRIVATE_KEY_FORMAT = /^(0x)?([0-9a-fA-F]{64})$/;
// ref_block_bytes are the low 16 bits of the reference block's number.
const REFERENCE_SPAN = 65_536;
// A proof reads every block from the reference block to the expiration: java-tron's 60 s are
// about 20 blocks. A window this long is not a transaction we built; it is never proven expired.
const MAX_WINDOW_BLOCKS = 1_200;

type SignedWindow = ReturnType<typeof parseSignedWindow>;

// tronweb's crypto helpers are typed loosely: the one we use, as we use it.
const signTransaction: (privateKey: string, transaction: object) => { signature: string[] } =
  utils.crypto.signTransaction;

/**
 * TronPayoutTransport over a java-tron full node's HTTP API (TronGrid or our own), through
 * TronNodeClient: the retries, failover and API-key rules of TronChainAdapter. Signing is local.
 */
export class TronNodePayoutTransport implements TronPayoutTransport {
  readonly family = 'TRON' as const;
  private readonly node: TronNodeClient;
  /** One client per RPC URL: an expiry counts only when every configured node proves it. */
  private readonly eachNode: TronNodeClient[];

  constructor(
    readonly network: NetworkConfig,
    options: TronNodeClientOptions = {},
  ) {
    if (network.chainFamily !== 'TRON') {
      throw new Error(`${network.name} is a ${network.chainFamily} network, not TRON.`);
    }
    this.node = new TronNodeClient(network, options);
    this.eachNode = network.rpcUrls.map(
      (url) => new TronNodeClient({ ...network, rpcUrls: [url] }, options),
    );
  }

  async balances(address: string, tokenContract: string): Promise<WalletBalances> {
    const owner = this.hexAddress(address, 'address');
    const contract = this.hexAddress(tokenContract, 'tokenContract');
    const [token, native] = await Promise.all([
      this.node.request(
        'wallet/triggerconstantcontract',
        {
          owner_address: owner,
          contract_address: contract,
          function_selector: BALANCE_OF_SIGNATURE,
          parameter: abiEncode(['address'], [owner]),
          visible: false,
        },
        parseUint256Result,
      ),
      this.node.request(
        'wallet/getaccount',
        { address: owner, visible: false },
        parseAccountBalance,
      ),
    ]);
    return { token, native };
  }

  async buildAndSign(
    key: HotWalletKey,
    order: TokenTransferOrder,
    feeLimitSun: bigint,
  ): Promise<SignedTransfer> {
    // Before any request: a wrong key must not even reach the node's transaction builder.
    const privateKey = this.privateKeyOf(key);
    const call = this.transferCall(key.address, order, feeLimitSun);
    const unsigned = await this.node.request(
      'wallet/triggersmartcontract',
      {
        owner_address: call.owner,
        contract_address: call.contract,
        function_selector: TRANSFER_SIGNATURE,
        parameter: call.data.slice(TRANSFER_SELECTOR.length),
        fee_limit: call.feeLimit,
        call_value: 0,
        visible: false,
      },
      (value) => parseUnsignedTransfer(value, call),
    );
    return {
      txHash: unsigned.txID,
      rawTransaction: JSON.stringify(this.signed(privateKey, unsigned)),
      nonce: null,
      fees: null,
      gasLimit: null,
      expiresAt: new Date(unsigned.raw_data.expiration as number),
    };
  }

  /** Sends the stored JSON; java-tron's answer is the result, a busy or unconnected node retried. */
  async broadcast(rawTransaction: string): Promise<BroadcastResult> {
    let transaction: unknown;
    try {
      transaction = JSON.parse(rawTransaction);
    } catch {
      transaction = undefined;
    }
    if (typeof transaction !== 'object' || transaction === null || Array.isArray(transaction)) {
      throw tronError('permanent', 'not a signed transaction (JSON object)', this.network.name);
    }
    return this.node.request(
      'wallet/broadcasttransaction',
      transaction as Record<string, unknown>,
      classifyTronBroadcast,
    );
  }

  async lookup(txHash: string): Promise<TransactionLookup> {
    return this.lookupOn(this.node, checkedTransactionId(txHash, this.network.name));
  }

  async provenExpired(rawTransaction: string): Promise<boolean> {
    const window = parseSignedWindow(rawTransaction);
    // One node that has every block of the window is proof enough: the blocks are the proof, so
    // a node that is down or behind only fails to give it.
    for (const node of this.eachNode) {
      try {
        if (await this.expiryProvenOn(node, window)) return true;
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
      }
    }
    return false;
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own (axios uses Node's global agent).
  }

  /**
   * Every block that could hold the transaction, read from this node: from its reference block
   * (only a later block may take it) to the first block past its expiration (no later block may),
   * each naming the one before as parent, all solidified (irreversible), none holding it. Or the
   * reference block itself is not on the chain.
   */
  private async expiryProvenOn(node: TronNodeClient, window: SignedWindow): Promise<boolean> {
    const solidified = await node.request('walletsolidity/getnowblock', {}, parseTimedBlock);
    if (!solidified || solidified.timestamp <= window.expiration) return false;
    // Solidified blocks only: a block read through a load-balanced URL may come from a backend
    // still on a fork at that height; walletsolidity answers irreversible blocks alone.
    const read = (number: number) =>
      node.request('walletsolidity/getblockbynum', { num: number }, parseTimedBlock);
    // The reference block is the last one at or below the solidified head with these low bits
    // (java-tron takes a reference block among the last 65,536); its id must match the stored one.
    const step = REFERENCE_SPAN;
    let reference = solidified.number - ((solidified.number - window.referenceLow + step) % step);
    if (reference < 0) return false;
    let first = await read(reference);
    // Signed more than 65,536 blocks (about 55 hours) ago: newer blocks share those low bits.
    while (first && first.timestamp > window.expiration && reference - step >= 0) {
      reference -= step;
      first = await read(reference);
    }
    if (!first || first.timestamp > window.expiration) return false;
    // Built by java-tron on its head, a transaction lives 60 s past its reference block (at most
    // MAX_TRANSACTION_LIFETIME_MS, checked when built): a longer gap means this is not its
    // reference block but a later one with the same low bits.
    if (window.expiration - first.timestamp > MAX_TRANSACTION_LIFETIME_MS) return false;
    // java-tron takes a transaction only while the block at its reference number is its reference
    // block (TaPoS). Another block there, solidified, is a positive proof that no block of this
    // chain ever took it or ever will (a reference block that lost a fork, say).
    if (first.blockId.slice(16, 32) !== window.referenceHash) return true;
    // Bisection for the first block past the expiration, below the solidified head.
    let past = solidified.number;
    let before = reference;
    while (past - before > 1) {
      const middle = Math.floor((past + before) / 2);
      const block = await read(middle);
      if (!block) return false;
      if (block.timestamp > window.expiration) past = middle;
      else before = middle;
    }
    if (past - reference > MAX_WINDOW_BLOCKS) return false;
    let parent = first.blockId;
    for (let number = reference + 1; number <= past; number++) {
      const block = await read(number);
      if (!block || block.parentHash !== parent) return false;
      if (block.transactionIds.includes(window.txID)) return false;
      parent = block.blockId;
    }
    return true;
  }

  private async lookupOn(node: TronNodeClient, transactionId: string): Promise<TransactionLookup> {
    const mined = await readMinedTransaction(node, transactionId, this.network.name);
    if (mined) return { state: 'mined', status: mined.status, feeBaseUnits: mined.feeSun };
    // Mined between the two reads, it reads as pending here and as mined on the next lookup.
    const known = await node.request(
      'wallet/gettransactionbyid',
      { value: transactionId },
      (value) => parseTransactionKnown(value, transactionId),
    );
    return known ? { state: 'pending' } : { state: 'unknown' };
  }

  private transferCall(
    owner: string,
    order: TokenTransferOrder,
    feeLimitSun: bigint,
  ): RequestedCall {
    const recipient = this.hexAddress(order.to, 'to');
    const amount = order.amountBaseUnits;
    if (amount <= 0n || amount > MAX_UINT256) {
      throw tronError('permanent', `amount ${amount} is not a positive uint256`, this.network.name);
    }
    if (feeLimitSun <= 0n || feeLimitSun > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw tronError(
        'permanent',
        `fee limit ${feeLimitSun} sun is out of range`,
        this.network.name,
      );
    }
    return {
      owner: this.hexAddress(owner, 'owner'),
      contract: this.hexAddress(order.tokenContract, 'tokenContract'),
      data: TRANSFER_SELECTOR + abiEncode(['address', 'uint256'], [recipient, amount]),
      // A cap on the fee burnt, in sun, checked above to be a safe integer: java-tron's JSON takes
      // a number here. No merchant amount ever passes through it.
      feeLimit: Number(feeLimitSun),
    };
  }

  /** The key as tronweb takes it (64 hex), checked to be the key of its configured address. */
  private privateKeyOf(key: HotWalletKey): string {
    const hex = PRIVATE_KEY_FORMAT.exec(key.privateKey())?.[2];
    const address = hex ? TronWeb.address.fromPrivateKey(hex) : false;
    if (!hex || !address) {
      throw new Error(`${this.network.name}: the hot wallet key is not a valid private key.`);
    }
    if (address !== key.address) {
      throw new Error(
        `${this.network.name}: the hot wallet key does not belong to ${JSON.stringify(key.address)}.`,
      );
    }
    return hex;
  }

  private signed(privateKey: string, unsigned: UnsignedTronTransaction): object {
    try {
      return signTransaction(privateKey, { ...unsigned });
    } catch {
      // Not the library's message, nor its error as cause: either may quote the key.
      throw new Error(`${this.network.name}: signing the transaction failed.`);
    }
  }

  /** 41-prefixed lowercase hex, the form of visible=false requests. */
  private hexAddress(address: string, name: string): string {
    if (!isValidAddress('TRON', address)) {
      const message = `${name} ${JSON.stringify(address)} is not a TRON address`;
      throw tronError('permanent', message, this.network.name);
    }
    return TronWeb.address.toHex(address).toLowerCase();
  }
}

/** ABI-encoded parameters, lowercase hex without 0x; addresses given as 41-prefixed hex. */
function abiEncode(types: string[], values: Array<string | bigint>): string {
  const evmValues = values.map((value) =>
    typeof value === 'string' ? `0x${value.slice(2)}` : value,
  );
  return AbiCoder.defaultAbiCoder().encode(types, evmValues).slice(2);
}
