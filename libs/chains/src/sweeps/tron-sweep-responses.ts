import { TronResponseError } from '../adapters/tron/tron-errors';
import { throwIfNodeError } from '../adapters/tron/tron-responses';
import { parseTransactionFeeSun } from '../adapters/tron/tron-transaction-fee';
import { decodeTronMessage } from '../payouts/node-messages';

// Shapes of the java-tron HTTP answers (visible=false) the TRON sweep transport reads, checked at
// runtime. java-tron prints protobuf JSON: a field at zero is left out, so absent means 0.

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(what: string): TronResponseError {
  return new TronResponseError(`malformed response: ${what}`);
}

/** A non-negative safe integer field of `object`, 0 when left out. */
function count(object: JsonObject, field: string, what: string): bigint {
  const value = object[field] ?? 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw malformed(`${what} ${field}`);
  }
  return BigInt(value);
}

/** How a mined transaction used resources, from its transaction info's receipt. */
export interface TronTransactionCosts {
  /** Sun burnt in all (`fee`). */
  feeSun: bigint;
  /** Energy taken from the owner's own (staked or delegated) energy. */
  energyUsage: bigint;
  /** Sun burnt for energy beyond it. */
  energyFeeSun: bigint;
  energyUsageTotal: bigint;
  /** Bandwidth bytes taken from free or staked bandwidth. */
  netUsage: bigint;
  /** Sun burnt for bandwidth (or for the bandwidth of creating an account). */
  netFeeSun: bigint;
}

export interface TronMinedTransaction extends TronTransactionCosts {
  blockNumber: number;
  succeeded: boolean;
  /** receipt.result of a contract call (SUCCESS, REVERT, OUT_OF_ENERGY...); null otherwise. */
  contractResult: string | null;
}

/** gettransactioninfobyid: null while no block holds the transaction (`{}`). */
export function parseMinedTransaction(
  value: unknown,
  transactionId: string,
): TronMinedTransaction | null {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('transaction info is not an object');
  if (Object.keys(value).length === 0) return null;
  if (typeof value.id !== 'string' || value.id.toLowerCase() !== transactionId) {
    throw malformed('transaction info of another transaction');
  }
  const { blockNumber } = value;
  if (typeof blockNumber !== 'number' || !Number.isSafeInteger(blockNumber) || blockNumber < 1) {
    throw malformed('transaction info without a block number');
  }
  const receipt = isObject(value.receipt) ? value.receipt : {};
  const contractResult = typeof receipt.result === 'string' ? receipt.result : null;
  // `result` is FAILED for a failed transaction (SUCESS, the default, is left out).
  const failed =
    (value.result !== undefined && value.result !== 'SUCESS') ||
    (contractResult !== null && contractResult !== 'SUCCESS');
  return {
    blockNumber,
    succeeded: !failed,
    contractResult,
    // The one parser of a TRON fee, shared with payouts and the books (absent = 0).
    feeSun: parseTransactionFeeSun(value),
    energyUsage: count(receipt, 'energy_usage', 'receipt'),
    energyFeeSun: count(receipt, 'energy_fee', 'receipt'),
    energyUsageTotal: count(receipt, 'energy_usage_total', 'receipt'),
    netUsage: count(receipt, 'net_usage', 'receipt'),
    netFeeSun: count(receipt, 'net_fee', 'receipt'),
  };
}

/** getchainparameters: {"chainParameter": [{"key", "value"}]}; a value left out is 0. */
export function parseChainParameter(value: unknown, key: string): bigint {
  throwIfNodeError(value);
  if (!isObject(value) || !Array.isArray(value.chainParameter)) {
    throw malformed('chain parameters without chainParameter');
  }
  const entry = value.chainParameter.find(
    (candidate: unknown) => isObject(candidate) && candidate.key === key,
  );
  if (!isObject(entry)) throw malformed(`chain parameters without ${key}`);
  return count(entry, 'value', `chain parameter ${key}`);
}

/** getaccount: whether the address is an account, and its TRX balance (sun). */
export function parseAccount(value: unknown): { activated: boolean; balanceSun: bigint } {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('account is not an object');
  // GetAccountServlet answers {} for an address that is no account (never activated).
  if (Object.keys(value).length === 0) return { activated: false, balanceSun: 0n };
  return { activated: true, balanceSun: count(value, 'balance', 'account') };
}

/** getaccountresource: what is left now of energy, free and staked bandwidth ({} for no account). */
export function parseAccountResources(value: unknown): {
  energyAvailable: bigint;
  freeBandwidthAvailable: bigint;
  stakedBandwidthAvailable: bigint;
} {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('account resources are not an object');
  const left = (limit: string, used: string): bigint => {
    const difference = count(value, limit, 'resources') - count(value, used, 'resources');
    return difference > 0n ? difference : 0n;
  };
  return {
    energyAvailable: left('EnergyLimit', 'EnergyUsed'),
    freeBandwidthAvailable: left('freeNetLimit', 'freeNetUsed'),
    stakedBandwidthAvailable: left('NetLimit', 'NetUsed'),
  };
}

/** getdelegatedresourcev2: sun of stake `from` lends `to` for energy ({} when none). */
export function parseDelegatedEnergy(value: unknown): bigint {
  throwIfNodeError(value);
  if (!isObject(value)) throw malformed('delegated resources are not an object');
  const list = value.delegatedResource ?? [];
  if (!Array.isArray(list)) throw malformed('delegatedResource is not a list');
  return list.reduce<bigint>((sum, entry: unknown) => {
    if (!isObject(entry)) throw malformed('delegated resource');
    return sum + count(entry, 'frozen_balance_for_energy', 'delegated resource');
  }, 0n);
}

/**
 * triggerconstantcontract of transfer(): the energy the call used. A refusal (no contract) or a
 * call that failed inside the contract (`ret` FAILED: the sender lacks the amount) throws: such a
 * transfer cannot be estimated, nor made.
 */
export function parseEnergyUsed(value: unknown): bigint {
  throwIfNodeError(value);
  if (!isObject(value) || !isObject(value.result)) {
    throw malformed('triggerconstantcontract without a result');
  }
  const { result } = value;
  if (result.result !== true) {
    const code = typeof result.code === 'string' ? result.code : 'no code';
    throw new TronResponseError(
      `triggerconstantcontract refused: ${code} ${decodeTronMessage(result.message)}`,
    );
  }
  const transaction = isObject(value.transaction) ? value.transaction : {};
  const [outcome] = Array.isArray(transaction.ret) ? (transaction.ret as unknown[]) : [];
  if (isObject(outcome) && outcome.ret === 'FAILED') {
    throw new TronResponseError(
      `triggerconstantcontract: the transfer fails (${decodeTronMessage(result.message)})`,
    );
  }
  const energy = count(value, 'energy_used', 'triggerconstantcontract');
  if (energy === 0n) throw malformed('triggerconstantcontract without energy_used');
  return energy;
}
