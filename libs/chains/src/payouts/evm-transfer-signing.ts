import { getAddress, keccak256, Transaction, Wallet } from 'ethers';
import { isValidAddress } from '../hd/addresses';
import { NetworkConfig } from '../networks/network.types';
import { transferCall } from './evm-erc20-calls';
import { HotWalletKey } from './hot-wallet-key';
import { EvmFees, SignedTransfer, TokenTransferOrder } from './payout-transport';

// A plain value transfer to an account without code costs exactly this much, on every EVM chain.
const CANCEL_GAS_LIMIT = 21_000n;

/** EthersPayoutTransport's local signing: a token transfer, or a cancel of a nonce. No RPC. */
export class EvmTransferSigner {
  private readonly wallets = new WeakMap<HotWalletKey, Wallet>();

  constructor(private readonly network: NetworkConfig) {}

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
      ...transferCall(order, this.network.name),
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

function checkSigningParams(nonce: number, fees: EvmFees, gasLimit: bigint): void {
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new Error(`Invalid nonce ${nonce}.`);
  if (gasLimit <= 0n) throw new Error(`Invalid gas limit ${gasLimit}.`);
  if (fees.maxPriorityFeePerGas < 0n || fees.maxFeePerGas < fees.maxPriorityFeePerGas) {
    throw new Error(
      `Invalid fees: maxFeePerGas ${fees.maxFeePerGas}, maxPriorityFeePerGas ${fees.maxPriorityFeePerGas}.`,
    );
  }
}
