import { NetworkConfig, TronNodePayoutTransport } from '@app/chains';
import {
  checkedTransactionId,
  readHeadBlockNumber,
} from '@app/chains/adapters/tron/tron-chain-reads';
import { TronNodeClient } from '@app/chains/adapters/tron/tron-node-client';
import { parseTransactionInfos } from '@app/chains/adapters/tron/tron-responses';
import { decodeTransferLog, toLogAddress } from '@app/chains/adapters/tron/trc20-transfer-log';
import { TronSweepTransport } from '@app/chains/sweeps/tron-sweep-transport';
import {
  parseAccount,
  parseChainParameter,
  parseMinedTransaction,
  TronMinedTransaction,
} from '@app/chains/sweeps/tron-sweep-responses';
import { parseTimedBlock } from '@app/chains/payouts/tron-payout-responses';

/** A step's transaction as an irreversible (solidified) block holds it. */
export interface SolidifiedStep extends TronMinedTransaction {
  /** TRC-20 Transfer logs of the network's tokens, with their position among the info's logs. */
  transfers: Array<{
    logIndex: number;
    token: string;
    from: string;
    to: string;
    amountBaseUnits: bigint;
  }>;
}

/** How much energy a sun of the staking account's stake gives, as the chain counts it now. */
export interface EnergyRatio {
  energy: bigint;
  perStakeSun: bigint;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (object: Json, field: string): bigint => {
  const value = object[field] ?? 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`TRON: malformed account field ${field}`);
  }
  return BigInt(value);
};
const SUN_PER_TRX = 1_000_000n;

/**
 * The TRON reads and builds a sweep needs: the sweep transport's primitives, the payout
 * transport's proofs (a transaction unknown to the node, or proven expired), and the reads
 * neither has: a step's info from the solidity API with its Transfer logs, chain parameters,
 * and the staking account's stake.
 */
export class TronSweepChain {
  readonly transport: TronSweepTransport;
  private readonly node: TronNodeClient;

  constructor(
    readonly network: NetworkConfig,
    readonly payouts: TronNodePayoutTransport,
    apiKey: string | undefined,
    allowedDestinations: string[],
  ) {
    this.transport = new TronSweepTransport(network, { apiKey, allowedDestinations });
    this.node = new TronNodeClient(network, { apiKey });
  }

  /**
   * The step's transaction info from walletsolidity: java-tron answers it only once the block
   * holding it is irreversible. Null until then (pending, in a recent block, or never mined).
   */
  async solidified(txHash: string): Promise<SolidifiedStep | null> {
    const id = checkedTransactionId(txHash, this.network.name);
    const raw = await this.node.request(
      'walletsolidity/gettransactioninfobyid',
      { value: id },
      (value) => value,
    );
    const mined = parseMinedTransaction(raw, id);
    if (!mined) return null;
    const [info] = parseTransactionInfos([raw], mined.blockNumber);
    const tokens = Object.values(this.network.tokens).map((token) => token!.contract);
    const transfers: SolidifiedStep['transfers'] = [];
    info.logs.forEach((log, logIndex) => {
      const token = tokens.find((contract) => toLogAddress(contract) === log.address);
      const transfer = token ? decodeTransferLog(log) : null;
      if (token && transfer) transfers.push({ logIndex, token, ...transfer });
    });
    return { ...mined, transfers };
  }

  /**
   * The address's TRX (sun) in the state of an irreversible block, with that block: the solidity
   * API's head, then the account, from one URL; null when that URL's solid head moved backwards
   * meanwhile (another backend answered: the read proves nothing).
   *
   * `tied`: the balance must be proven to be the one at that very block, not merely read after
   * it (a load balancer may hand the account read to a backend behind the head read): java-tron's
   * AccountBalance (`wallet/getaccountbalance`, needs `storage.balance.history.lookup`) at the
   * block's number and hash, whose answer names the block. A node without it fails the read.
   */
  async solidTrxBalance(
    address: string,
    tied = false,
  ): Promise<{ balanceSun: bigint; block: number } | null> {
    const before = await this.node.requestWithSource(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
    );
    if (!before.value) return null;
    if (tied) {
      const block = { hash: before.value.blockId, number: before.value.number };
      const balanceSun = await this.node.request(
        'wallet/getaccountbalance',
        {
          account_identifier: { address: TronSweepChain.toHex(address) },
          block_identifier: block,
          visible: false,
        },
        (value) => parseBalanceAtBlock(value, block),
        before.source,
      );
      return { balanceSun, block: block.number };
    }
    const account = await this.node.request(
      'walletsolidity/getaccount',
      { address: TronSweepChain.toHex(address), visible: false },
      parseAccount,
      before.source,
    );
    const after = await this.node.request(
      'walletsolidity/getnowblock',
      {},
      parseTimedBlock,
      before.source,
    );
    if (!after || after.number < before.value.number) return null;
    return { balanceSun: account.balanceSun, block: before.value.number };
  }

  /** The head block number (java-tron reads the current state only: balances read after it). */
  async headBlock(): Promise<number> {
    return readHeadBlockNumber(this.node, this.network.name);
  }

  async chainParameter(key: string): Promise<bigint> {
    return this.node.request('wallet/getchainparameters', {}, (value) =>
      parseChainParameter(value, key),
    );
  }

  /**
   * The staking account's stake for energy. The ratio: the network's TotalEnergyLimit /
   * TotalEnergyWeight (whole TRX) when the node reports them (mainnet does), else the account's
   * own energy limit over the stake it counts (its energy stake not lent, plus what it was lent).
   * Lendable: its energy stake neither lent nor covering energy it used itself (java-tron counts
   * used energy against what may be delegated). java-tron moves a delegation out of `frozenV2`
   * (into delegated_frozenV2_balance_for_energy): `frozenV2` is already the stake not lent, and
   * taking the loans off it again made the ratio too high, so every sweep lent while others were
   * lent got too little energy and waited for good.
   */
  async stakingState(stakingAddress: string): Promise<{ ratio: EnergyRatio; lendableSun: bigint }> {
    const address = { address: TronSweepChain.toHex(stakingAddress), visible: false };
    const [account, resources] = await Promise.all([
      this.node.request('wallet/getaccount', address, (value) => value),
      this.node.request('wallet/getaccountresource', address, (value) => value),
    ]);
    if (!isObject(account) || !isObject(resources)) throw new Error('TRON: malformed account');
    const resource = isObject(account.account_resource) ? account.account_resource : {};
    const frozen = (Array.isArray(account.frozenV2) ? account.frozenV2 : [])
      .filter((entry): entry is Json => isObject(entry) && entry.type === 'ENERGY')
      .reduce((sum, entry) => sum + count(entry, 'amount'), 0n);
    const totalLimit = count(resources, 'TotalEnergyLimit');
    const totalWeight = count(resources, 'TotalEnergyWeight');
    const ratio: EnergyRatio =
      totalLimit > 0n && totalWeight > 0n
        ? { energy: totalLimit, perStakeSun: totalWeight * SUN_PER_TRX }
        : {
            energy: count(resources, 'EnergyLimit'),
            perStakeSun: frozen + count(resource, 'acquired_delegated_frozenV2_balance_for_energy'),
          };
    const used = count(resources, 'EnergyUsed');
    const usedStake = ratio.energy > 0n ? ceilDiv(used * ratio.perStakeSun, ratio.energy) : 0n;
    const lendable = frozen - ceilDiv(usedStake, SUN_PER_TRX) * SUN_PER_TRX;
    return { ratio, lendableSun: lendable > 0n ? lendable : 0n };
  }

  static toHex(address: string): string {
    return `41${toLogAddress(address)}`;
  }
}

/** getaccountbalance's answer: the balance, only when it names the very block asked for. */
export function parseBalanceAtBlock(
  value: unknown,
  block: { hash: string; number: number },
): bigint {
  if (!isObject(value) || typeof value.Error === 'string') {
    throw new Error(
      `TRON getaccountbalance: ${isObject(value) ? String(value.Error) : 'malformed'}`,
    );
  }
  const named = isObject(value.block_identifier) ? value.block_identifier : {};
  if (
    named.number !== block.number ||
    typeof named.hash !== 'string' ||
    named.hash.toLowerCase() !== block.hash.toLowerCase()
  ) {
    throw new Error(`TRON getaccountbalance: not the balance at block ${block.number}`);
  }
  return count(value, 'balance');
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/** Stake (sun, whole TRX, at least 1 TRX) that gives at least `energy` at the ratio. */
export function stakeForEnergy(energy: bigint, ratio: EnergyRatio): bigint {
  if (ratio.energy <= 0n || ratio.perStakeSun <= 0n) {
    throw new Error('TRON: the staking account has no energy stake to lend.');
  }
  const sun = ceilDiv(energy * ratio.perStakeSun, ratio.energy);
  const whole = ceilDiv(sun, SUN_PER_TRX) * SUN_PER_TRX;
  return whole < SUN_PER_TRX ? SUN_PER_TRX : whole;
}
