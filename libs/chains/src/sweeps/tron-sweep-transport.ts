import { AbiCoder } from 'ethers';
import { TronWeb } from 'tronweb';
import { checkedTransactionId, tronError } from '../adapters/tron/tron-chain-reads';
import { TronNodeClient, TronNodeClientOptions } from '../adapters/tron/tron-node-client';
import { isValidAddress } from '../hd/addresses';
import { NetworkConfig } from '../networks/network.types';
import { BroadcastResult } from '../payouts/payout-transport';
import { classifyTronBroadcast } from '../payouts/tron-broadcast-result';
import { parseTimedBlock, parseUint256Result } from '../payouts/tron-payout-responses';
import {
  parseAccount,
  parseAccountResources,
  parseChainParameter,
  parseDelegatedEnergy,
  parseEnergyUsed,
  parseMinedTransaction,
  TronMinedTransaction,
} from './tron-sweep-responses';
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

export type { SignedTronTransaction, TronSigningKey } from './tron-sweep-signing';
export type { TronMinedTransaction, TronTransactionCosts } from './tron-sweep-responses';

/** What an address is on chain now, for deciding the sweep's steps. */
export interface TronAccountState {
  /** An account exists (activated): only then may it sign, or receive delegated energy. */
  activated: boolean;
  balanceSun: bigint;
  /** Energy left now: its own stake's and what others delegated to it, less what it used. */
  energyAvailable: bigint;
  /** Free bandwidth left today (600 bytes a day per account on mainnet). */
  freeBandwidthAvailable: bigint;
  /** Free and staked (or delegated) bandwidth left. */
  bandwidthAvailable: bigint;
}

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

const TRANSFER_SIGNATURE = 'transfer(address,uint256)';
const BALANCE_OF_SIGNATURE = 'balanceOf(address)';
const SUN_PER_TRX = 1_000_000n;
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * The TRON primitives of a sweep: activate a deposit address (CreateAccountContract from the
 * staking account), lend it energy (DelegateResourceContract) and take it back, move its whole
 * token balance to the hot wallet or treasury. Each build* reads the head block (the TaPoS
 * reference), builds and signs locally with tronweb, and returns the signed transaction without
 * sending it, so the caller journals it first and broadcasts it (again) with `broadcast`.
 * Reads go through TronNodeClient: the retries, failover and API-key rules of the other TRON
 * clients; a failure throws ChainError.
 */
/** Solidity-API balance reads in flight at once (TRON has no Multicall). */
const SOLID_READS_IN_FLIGHT = 8;

export class TronSweepTransport {
  private readonly node: TronNodeClient;
  private readonly tronWeb: TronWeb;
  private readonly allowedDestinations: ReadonlySet<string>;
  private readonly tokens: ReadonlySet<string>;

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
    const destinations = [...options.allowedDestinations];
    for (const destination of destinations) this.hexAddress(destination, 'allowed destination');
    this.allowedDestinations = new Set(destinations);
    this.tokens = new Set(Object.values(network.tokens).map((token) => token?.contract as string));
  }

  /** Sun burnt per unit of energy, as the chain charges it now (getEnergyFee). */
  async energyPrice(): Promise<bigint> {
    return this.chainParameter('getEnergyFee');
  }

  /** Sun burnt per byte of bandwidth (getTransactionFee). */
  async bandwidthPrice(): Promise<bigint> {
    return this.chainParameter('getTransactionFee');
  }

  async accountState(address: string): Promise<TronAccountState> {
    const hex = this.hexAddress(address, 'address');
    const [account, resources] = await Promise.all([
      this.node.request('wallet/getaccount', { address: hex, visible: false }, parseAccount),
      this.node.request(
        'wallet/getaccountresource',
        { address: hex, visible: false },
        parseAccountResources,
      ),
    ]);
    return {
      ...account,
      energyAvailable: resources.energyAvailable,
      freeBandwidthAvailable: resources.freeBandwidthAvailable,
      bandwidthAvailable: resources.freeBandwidthAvailable + resources.stakedBandwidthAvailable,
    };
  }

  /** Sun of stake `from` lends `to` for energy now. */
  async delegatedEnergy(from: string, to: string): Promise<bigint> {
    return this.node.request(
      'wallet/getdelegatedresourcev2',
      {
        fromAddress: this.hexAddress(from, 'from'),
        toAddress: this.hexAddress(to, 'to'),
        visible: false,
      },
      parseDelegatedEnergy,
    );
  }

  async tokenBalance(address: string, token: string): Promise<bigint> {
    const owner = this.hexAddress(address, 'address');
    return this.node.request(
      'wallet/triggerconstantcontract',
      {
        owner_address: owner,
        contract_address: this.hexAddress(token, 'token'),
        function_selector: BALANCE_OF_SIGNATURE,
        parameter: abiEncode(['address'], [owner]),
        visible: false,
      },
      parseUint256Result,
    );
  }

  /**
   * Balances of `token` from the solidity API (the state of an irreversible block), every read
   * from the one URL that answered the solid head, between two reads of that head. A backend
   * behind the URL still catching up answers an older solid head after than before: the caller
   * then trusts none of the balances.
   */
  async solidTokenBalances(
    addresses: string[],
    token: string,
  ): Promise<{ solidBefore: number; solidAfter: number; balances: bigint[] }> {
    const tokenHex = this.hexAddress(token, 'token');
    const owners = addresses.map((address) => this.hexAddress(address, 'address'));
    const before = await this.node.requestWithSource(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
    );
    if (!before.value) {
      throw tronError(
        'transient',
        'walletsolidity/getnowblock returned no block',
        this.network.name,
      );
    }
    const balances: bigint[] = [];
    for (let start = 0; start < owners.length; start += SOLID_READS_IN_FLIGHT) {
      const batch = owners.slice(start, start + SOLID_READS_IN_FLIGHT);
      balances.push(
        ...(await Promise.all(
          batch.map((owner) =>
            this.node.request(
              'walletsolidity/triggerconstantcontract',
              {
                owner_address: owner,
                contract_address: tokenHex,
                function_selector: BALANCE_OF_SIGNATURE,
                parameter: abiEncode(['address'], [owner]),
                visible: false,
              },
              parseUint256Result,
              before.source,
            ),
          ),
        )),
      );
    }
    const after = await this.node.request(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
      before.source,
    );
    return {
      solidBefore: before.value.number,
      solidAfter: after?.number ?? -1,
      balances,
    };
  }

  /**
   * CreateAccountContract from the staking account: makes `address` an account without sending it
   * any TRX (no dust). Burns getCreateNewAccountFeeInSystemContract (1 TRX) plus, unless the
   * staking account has staked bandwidth, getCreateAccountFee (0.1 TRX): free bandwidth does not
   * pay for creating an account.
   */
  async buildActivate(stakingKey: TronSigningKey, address: string): Promise<SignedTronTransaction> {
    const privateKey = checkedPrivateKey(stakingKey.privateKey(), stakingKey.address);
    this.hexAddress(address, 'address');
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
    this.hexAddress(receiver, 'receiver');
    const amount = this.stakeAmount(stakeSun);
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
    this.hexAddress(receiver, 'receiver');
    const amount = this.stakeAmount(stakeSun);
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
    this.checkTransfer(token, to, amount);
    this.checkFeeLimit(feeLimitSun);
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
    const owner = this.hexAddress(address, 'address');
    const contract = this.hexAddress(token, 'token');
    const recipient = this.destination(to);
    const swept = amount ?? (await this.tokenBalance(address, token));
    this.checkTransfer(token, to, swept);
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

  /** The mined transaction's outcome and costs (`fee`: sun burnt), or null while no block has it. */
  async transactionInfo(txHash: string): Promise<TronMinedTransaction | null> {
    const id = checkedTransactionId(txHash, this.network.name);
    return this.node.request('wallet/gettransactioninfobyid', { value: id }, (value) =>
      parseMinedTransaction(value, id),
    );
  }

  private async transferTransaction(
    owner: string,
    token: string,
    to: string,
    amount: bigint,
    feeLimitSun: bigint,
    blockHeader: ReferenceBlock,
  ) {
    this.checkTransfer(token, to, amount);
    this.checkFeeLimit(feeLimitSun);
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

  private async chainParameter(key: string): Promise<bigint> {
    return this.node.request('wallet/getchainparameters', {}, (value) =>
      parseChainParameter(value, key),
    );
  }

  /** `to` as 41-hex, refused unless it is an allowed destination. */
  private destination(to: string): string {
    const hex = this.hexAddress(to, 'to');
    if (!this.allowedDestinations.has(to)) {
      throw tronError(
        'permanent',
        `${JSON.stringify(to)} is not an allowed sweep destination`,
        this.network.name,
      );
    }
    return hex;
  }

  /** A transfer the deposit key may sign: a token of the network, to an allowed destination. */
  private checkTransfer(token: string, to: string, amount: bigint): void {
    this.destination(to);
    this.hexAddress(token, 'token');
    if (!this.tokens.has(token)) {
      throw tronError('permanent', `${token} is not a token of the network`, this.network.name);
    }
    if (amount <= 0n || amount > MAX_UINT256) {
      throw tronError('permanent', `amount ${amount} is not a positive uint256`, this.network.name);
    }
  }

  private checkFeeLimit(feeLimitSun: bigint): void {
    // java-tron's JSON takes a number here: a safe integer of sun.
    if (feeLimitSun <= 0n || feeLimitSun > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw tronError(
        'permanent',
        `fee limit ${feeLimitSun} sun is out of range`,
        this.network.name,
      );
    }
  }

  /** A stake amount in sun as tronweb takes it: whole sun, at least 1 TRX (java-tron's minimum). */
  private stakeAmount(stakeSun: bigint): number {
    if (stakeSun < SUN_PER_TRX || stakeSun > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw tronError(
        'permanent',
        `stake ${stakeSun} sun is out of range (at least 1 TRX)`,
        this.network.name,
      );
    }
    return Number(stakeSun);
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
