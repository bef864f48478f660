import { AbiCoder, id } from 'ethers';
import { TronWeb, utils } from 'tronweb';
import { isValidAddress } from '../hd/addresses';
import {
  checkedTransactionId,
  readTransactionStatus,
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
  parseBlockTimestamp,
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

  async hasExpired(txHash: string, expiresAt: Date): Promise<boolean> {
    const transactionId = checkedTransactionId(txHash, this.network.name);
    const deadline = expiresAt.getTime();
    if (Number.isNaN(deadline)) throw new Error('expiresAt is not a valid date.');
    const verdicts = await Promise.all(
      this.eachNode.map((node) => this.expiredOn(node, transactionId, deadline)),
    );
    return verdicts.every((expired) => expired);
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own (axios uses Node's global agent).
  }

  /**
   * The solidified head first: once it is past the expiration, no later block can take the
   * transaction, so a node that then does not know it proves it will never be mined.
   */
  private async expiredOn(
    node: TronNodeClient,
    transactionId: string,
    deadline: number,
  ): Promise<boolean> {
    const solidified = await node.request('walletsolidity/getnowblock', {}, parseBlockTimestamp);
    if (solidified <= deadline) return false;
    return (await this.lookupOn(node, transactionId)).state === 'unknown';
  }

  private async lookupOn(node: TronNodeClient, transactionId: string): Promise<TransactionLookup> {
    const status = await readTransactionStatus(node, transactionId, this.network.name);
    if (status) return { state: 'mined', status };
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
