import { TronWeb } from 'tronweb';
import { tronError } from '../adapters/tron/tron-chain-reads';
import { TronNodeClient, TronNodeClientOptions } from '../adapters/tron/tron-node-client';
import { NetworkConfig } from '../networks/network.types';
import { BroadcastResult } from '../payouts/payout-transport';
import { classifyTronBroadcast } from '../payouts/tron-broadcast-result';
import { parseTimedBlock } from '../payouts/tron-payout-responses';
import { TronSweepChecks } from './tron-sweep-checks';
import { TronAccountState, TronSweepReads } from './tron-sweep-reads';
import { parseEnergyUsed, TronMinedTransaction } from './tron-sweep-responses';
import {
  addressOfKey,
  bandwidthOf,
  checkedPrivateKey,
  ReferenceBlock,
  referenceBlock,
  signed,
  SignedTronTransaction,
  TronSigningKey,
} from './tron-sweep-signing';
import { abiEncode, TRANSFER_SIGNATURE } from './tron-trc20-calls';

export type { SignedTronTransaction, TronSigningKey } from './tron-sweep-signing';
export type { TronMinedTransaction, TronTransactionCosts } from './tron-sweep-responses';
export type { TronAccountState } from './tron-sweep-reads';

/** What sweeping an address would take, at the chain's prices now. */
export interface TronSweepCost {
  /** Energy the transfer uses (the node's estimate: triggerconstantcontract). */
  energy: bigint;
  /** Sun per energy (getEnergyFee). */
  energyPriceSun: bigint;
  /** TRX burnt for energy if the address has none: energy x price. */
  energyBurnSun: bigint;
  /** Bytes of bandwidth the signed transfer uses. */
  bandwidthBytes: bigint;
  /** Sun per byte (getTransactionFee). */
  bandwidthPriceSun: bigint;
  /** TRX burnt for bandwidth if the address has no free or staked bandwidth left. */
  bandwidthBurnSun: bigint;
  /** The fee_limit the transfer needs: java-tron caps all its energy, own energy included. */
  feeLimitSun: bigint;
}

export interface TronSweepTransportOptions extends TronNodeClientOptions {
  /**
   * The only addresses (base58) a sweep transfer may go to: the network's hot wallet and
   * treasury. What holds the deposit keys signs a transfer to nothing else.
   */
  allowedDestinations: Iterable<string>;
}

/**
 * The TRON primitives of a sweep: activate a deposit address (CreateAccountContract from the
 * staking account), lend it energy (DelegateResourceContract) and take it back, move its whole
 * token balance to the hot wallet or treasury. Each build* reads the head block (the TaPoS
 * reference), builds and signs locally with tronweb, and returns the signed transaction without
 * sending it, so the caller journals it first and broadcasts it (again) with `broadcast`.
 * Reads go through TronNodeClient: the retries, failover and API-key rules of the other TRON
 * clients; a failure throws ChainError. The reads are TronSweepReads'; what may be read, built
 * and signed is checked by TronSweepChecks.
 */
export class TronSweepTransport {
  private readonly node: TronNodeClient;
  private readonly tronWeb: TronWeb;
  private readonly checks: TronSweepChecks;
  private readonly reads: TronSweepReads;

  constructor(
    readonly network: NetworkConfig,
    options: TronSweepTransportOptions,
  ) {
    if (network.chainFamily !== 'TRON') {
      throw new Error(`${network.name} is a ${network.chainFamily} network, not TRON.`);
    }
    this.node = new TronNodeClient(network, options);
    // Only tronweb's local builders are used (every build gets its blockHeader): it sends nothing.
    this.tronWeb = new TronWeb({ fullHost: network.rpcUrls[0] });
    this.checks = new TronSweepChecks(network, options.allowedDestinations);
    this.reads = new TronSweepReads(network, this.node, this.checks);
  }

  energyPrice(): Promise<bigint> {
    return this.reads.energyPrice();
  }

  bandwidthPrice(): Promise<bigint> {
    return this.reads.bandwidthPrice();
  }

  accountState(address: string): Promise<TronAccountState> {
    return this.reads.accountState(address);
  }

  delegatedEnergy(from: string, to: string): Promise<bigint> {
    return this.reads.delegatedEnergy(from, to);
  }

  tokenBalance(address: string, token: string): Promise<bigint> {
    return this.reads.tokenBalance(address, token);
  }

  solidTokenBalances(
    addresses: string[],
    token: string,
  ): Promise<{ solidBefore: number; solidAfter: number; balances: bigint[] }> {
    return this.reads.solidTokenBalances(addresses, token);
  }

  /**
   * CreateAccountContract from the staking account: makes `address` an account without sending it
   * any TRX (no dust). Burns getCreateNewAccountFeeInSystemContract (1 TRX) plus, unless the
   * staking account has staked bandwidth, getCreateAccountFee (0.1 TRX): free bandwidth does not
   * pay for creating an account.
   */
  async buildActivate(stakingKey: TronSigningKey, address: string): Promise<SignedTronTransaction> {
    const privateKey = checkedPrivateKey(stakingKey.privateKey(), stakingKey.address);
    this.checks.hexAddress(address, 'address');
    const blockHeader = await this.reference();
    const transaction = await this.tronWeb.transactionBuilder.createAccount(
      address,
      stakingKey.address,
      { blockHeader },
    );
    return signed(privateKey, transaction);
  }

  /** DelegateResourceContract: lends the energy of `stakeSun` of the staking account's stake. */
  async buildDelegateEnergy(
    stakingKey: TronSigningKey,
    receiver: string,
    stakeSun: bigint,
  ): Promise<SignedTronTransaction> {
    const privateKey = checkedPrivateKey(stakingKey.privateKey(), stakingKey.address);
    this.checks.hexAddress(receiver, 'receiver');
    const amount = this.checks.stakeAmount(stakeSun);
    const blockHeader = await this.reference();
    const transaction = await this.tronWeb.transactionBuilder.delegateResource(
      amount,
      receiver,
      'ENERGY',
      stakingKey.address,
      false,
      undefined,
      { blockHeader },
    );
    return signed(privateKey, transaction);
  }

  /** UnDelegateResourceContract: takes back the energy of `stakeSun` lent to `receiver`. */
  async buildUndelegateEnergy(
    stakingKey: TronSigningKey,
    receiver: string,
    stakeSun: bigint,
  ): Promise<SignedTronTransaction> {
    const privateKey = checkedPrivateKey(stakingKey.privateKey(), stakingKey.address);
    this.checks.hexAddress(receiver, 'receiver');
    const amount = this.checks.stakeAmount(stakeSun);
    const blockHeader = await this.reference();
    const transaction = await this.tronWeb.transactionBuilder.undelegateResource(
      amount,
      receiver,
      'ENERGY',
      stakingKey.address,
      { blockHeader },
    );
    return signed(privateKey, transaction);
  }

  /**
   * The deposit address's TRC-20 transfer() of `amount` to `to`, which must be an allowed
   * destination, of a token of the network. Checked before anything is read or signed. The
   * fee_limit caps all the energy the call may use, delegated energy included (java-tron:
   * min(own energy + balance / price, fee_limit / price)), so it must cover energy x price even
   * when no TRX is to be burnt.
   */
  async buildSweepTransfer(
    depositPrivateKey: string,
    token: string,
    to: string,
    amount: bigint,
    feeLimitSun: bigint,
  ): Promise<SignedTronTransaction> {
    const privateKey = checkedPrivateKey(depositPrivateKey, undefined);
    const owner = addressOfKey(privateKey);
    // Before any request: the deposit key signs nothing but a whole-balance move to our wallets.
    this.checks.checkTransfer(token, to, amount);
    this.checks.checkFeeLimit(feeLimitSun);
    const blockHeader = await this.reference();
    const transaction = await this.transferTransaction(
      owner,
      token,
      to,
      amount,
      feeLimitSun,
      blockHeader,
    );
    return signed(privateKey, transaction);
  }

  /**
   * What sweeping `amount` (by default the whole balance) of `token` from `address` to `to` takes:
   * the node's energy estimate for the very call (triggerconstantcontract: 64,285 to a holder of
   * USDT, about twice that to an address holding none, more under USDT's dynamic energy factor),
   * the bytes of the signed transfer, and what each would burn at the chain's prices now.
   */
  async estimateSweepCost(
    address: string,
    token: string,
    to: string,
    amount?: bigint,
  ): Promise<TronSweepCost> {
    const owner = this.checks.hexAddress(address, 'address');
    const contract = this.checks.hexAddress(token, 'token');
    const recipient = this.checks.destination(to);
    const swept = amount ?? (await this.tokenBalance(address, token));
    this.checks.checkTransfer(token, to, swept);
    const [energy, energyPriceSun, bandwidthPriceSun, blockHeader] = await Promise.all([
      this.node.request(
        'wallet/triggerconstantcontract',
        {
          owner_address: owner,
          contract_address: contract,
          function_selector: TRANSFER_SIGNATURE,
          parameter: abiEncode(['address', 'uint256'], [recipient, swept]),
          visible: false,
        },
        parseEnergyUsed,
      ),
      this.energyPrice(),
      this.bandwidthPrice(),
      this.reference(),
    ]);
    const feeLimitSun = energy * energyPriceSun;
    const unsigned = await this.transferTransaction(
      TronWeb.address.fromHex(owner),
      token,
      to,
      swept,
      feeLimitSun > 0n ? feeLimitSun : 1n,
      blockHeader,
    );
    const bandwidthBytes = bandwidthOf(unsigned.raw_data_hex);
    return {
      energy,
      energyPriceSun,
      energyBurnSun: feeLimitSun,
      bandwidthBytes,
      bandwidthPriceSun,
      bandwidthBurnSun: bandwidthBytes * bandwidthPriceSun,
      feeLimitSun,
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

  transactionInfo(txHash: string): Promise<TronMinedTransaction | null> {
    return this.reads.transactionInfo(txHash);
  }

  private async transferTransaction(
    owner: string,
    token: string,
    to: string,
    amount: bigint,
    feeLimitSun: bigint,
    blockHeader: ReferenceBlock,
  ) {
    this.checks.checkTransfer(token, to, amount);
    this.checks.checkFeeLimit(feeLimitSun);
    // A cap on the fee burnt, in sun, checked above to be a safe integer: tronweb takes a number
    // here. No token amount passes through it (the amount goes in the ABI-encoded bigint below).
    const built = await this.tronWeb.transactionBuilder.triggerSmartContract(
      token,
      TRANSFER_SIGNATURE,
      { feeLimit: Number(feeLimitSun), callValue: 0, txLocal: true, blockHeader },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: amount.toString() },
      ],
      owner,
    );
    return built.transaction;
  }

  /** The head block as TaPoS reference: the transaction lives 60 s past it, as java-tron's own. */
  private async reference(): Promise<ReferenceBlock> {
    const head = await this.node.request('wallet/getnowblock', {}, parseTimedBlock);
    if (!head) throw tronError('transient', 'getnowblock returned no block', this.network.name);
    return referenceBlock(head);
  }
}
