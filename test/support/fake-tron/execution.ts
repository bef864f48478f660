/**
 * TEST DOUBLE: how the fake TRON node applies a signed transaction to its accounts, charging
 * bandwidth, energy and fees the way java-tron does, much reduced. A transaction either is
 * refused (FakeRefusal: the broadcast answers its code; a block leaves it out) or is applied, a
 * failed contract call (REVERT, OUT_OF_ENERGY) included: then its fees are burnt all the same.
 *
 * Every sun taken from the owner's balance is in the transaction info's `fee`, so a test can
 * prove the fees it books equal the balance changes.
 *
 * Bandwidth (BandwidthProcessor.consume): the transaction's bytes plus 64, from the owner's
 * staked bandwidth, else its free bandwidth (600 bytes a day), else bytes x getTransactionFee
 * burnt, else refused (BANDWITH_ERROR). A transaction creating an account (CreateAccountContract,
 * a TRX transfer to a new address) uses staked bandwidth only, else burns getCreateAccountFee.
 * An owner that is no account is refused ("account [...] does not exist").
 *
 * Energy (TriggerSmartContract; developers.tron.network/docs/feelimit): the call may use at most
 * min(own energy left + balance / getEnergyFee, fee_limit / getEnergyFee). Own energy (staked or
 * delegated to it) is used first, the rest is burnt at getEnergyFee. A call needing more than
 * that limit fails with OUT_OF_ENERGY and uses the whole limit. A TRC-20 transfer() uses 64,285
 * energy to an address already holding the token and 130,285 to one holding none (USDT's figures
 * before any dynamic energy factor); a transfer reverting (the sender lacks the amount) 1,000;
 * any other call 29,631.
 */
import { FakeChainParameters } from './chain-parameters';
import { consume, FakeAccount, FakeResource, FakeTronAccounts } from './accounts';
import {
  addressField,
  bandwidthBytes,
  base58Address,
  encode,
  firstContract,
  isJson,
  Json,
  TRANSFER_CALL,
  transferLog,
  utf8Hex,
  word,
} from './wire';
import { FakeTronBalances } from '../fake-tron-balances';

/** receipt.result values of failed contract calls (java-tron's contractResult enum). */
export type FakeFailure = 'REVERT' | 'OUT_OF_ENERGY';

export const TRANSFER_TO_HOLDER_ENERGY = 64_285n;
export const TRANSFER_TO_NEW_HOLDER_ENERGY = 130_285n;
export const REVERT_ENERGY = 1_000n;
export const OTHER_CALL_ENERGY = 29_631n;
const SUN_PER_TRX = 1_000_000n;

export const FAILURE_MESSAGES: Record<FakeFailure, string> = {
  REVERT: 'REVERT opcode executed',
  OUT_OF_ENERGY: "Not enough energy for 'SSTORE' operation executing",
};

/** java-tron refused the transaction: the broadcast's `code` and message. */
export class FakeRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string): FakeRefusal =>
  new FakeRefusal('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${message}`);

/** The chain state transactions change; cloned for a dry run, replaced when one applies. */
export class FakeTronState {
  constructor(
    readonly accounts: FakeTronAccounts,
    readonly tokens: FakeTronBalances,
  ) {}

  clone(): FakeTronState {
    return new FakeTronState(this.accounts.clone(), this.tokens.clone());
  }
}

export interface ExecutionContext {
  parameters: FakeChainParameters;
  /** Timestamp (ms) of the block applying the transaction (resources recover on it). */
  now: number;
  /** Whether a contract is deployed at the address (41 hex). */
  hasContract(contract: string): boolean;
}

/** What applying a transaction gave: its `ret` and its transaction info (without id and block). */
export interface ExecutionOutcome {
  contractRet: 'SUCCESS' | FakeFailure;
  info: Json;
}

interface Bandwidth {
  netUsage: bigint;
  netFee: bigint;
}

/**
 * Applies the posted transaction to `state` (which it changes even when it throws: run it on a
 * clone and keep the clone only if it returns).
 */
export function execute(
  state: FakeTronState,
  posted: Json,
  context: ExecutionContext,
): ExecutionOutcome {
  const { type, value } = firstContract(posted.raw_data);
  const owner = addressField(value, 'owner_address');
  const rawDataHex =
    typeof posted.raw_data_hex === 'string'
      ? posted.raw_data_hex
      : encode(posted.raw_data).raw_data_hex;
  const signatures = Array.isArray(posted.signature) ? posted.signature.map(String) : [];
  const bytes = BigInt(bandwidthBytes(rawDataHex, signatures));
  const createsAccount =
    type === 'AccountCreateContract' ||
    (type === 'TransferContract' && !state.accounts.get(addressField(value, 'to_address')));
  const bandwidth = payBandwidth(state.accounts, owner, bytes, createsAccount, context);
  const account = state.accounts.get(owner) as FakeAccount;
  const rawData = isJson(posted.raw_data) ? posted.raw_data : {};
  switch (type) {
    case 'AccountCreateContract':
      return systemOutcome(bandwidth, createAccount(state.accounts, account, value, context));
    case 'TransferContract':
      return systemOutcome(bandwidth, transferTrx(state.accounts, account, owner, value, context));
    case 'FreezeBalanceV2Contract':
      freeze(account, value);
      return systemOutcome(bandwidth, 0n);
    case 'DelegateResourceContract':
      delegate(state.accounts, account, owner, value, context.now);
      return systemOutcome(bandwidth, 0n);
    case 'UnDelegateResourceContract':
      undelegate(state.accounts, account, owner, value, context.now);
      return systemOutcome(bandwidth, 0n);
    case 'TriggerSmartContract':
      return triggerContract(state, account, owner, value, rawData, bandwidth, context);
    default:
      throw invalid(`fake node: ${type || 'this contract type'} is not supported`);
  }
}

function payBandwidth(
  accounts: FakeTronAccounts,
  owner: string,
  bytes: bigint,
  createsAccount: boolean,
  context: ExecutionContext,
): Bandwidth {
  const account = accounts.get(owner);
  if (!account) throw invalid(`account [${base58Address(owner)}] does not exist`);
  const { now, parameters } = context;
  if (accounts.netLeft(account, now) >= bytes) {
    consume(account.net, bytes, now);
    return { netUsage: bytes, netFee: 0n };
  }
  if (createsAccount) {
    const fee = BigInt(parameters.getCreateAccountFee);
    if (account.balance < fee) throw insufficientBandwidth(owner, bytes, fee);
    account.balance -= fee;
    return { netUsage: 0n, netFee: fee };
  }
  const freeLeft = BigInt(parameters.getFreeNetLimit) - usedFree(account, now);
  if (freeLeft >= bytes) {
    consume(account.freeNet, bytes, now);
    return { netUsage: bytes, netFee: 0n };
  }
  const fee = bytes * BigInt(parameters.getTransactionFee);
  if (account.balance < fee) throw insufficientBandwidth(owner, bytes, fee);
  account.balance -= fee;
  return { netUsage: 0n, netFee: fee };
}

function usedFree(account: FakeAccount, now: number): bigint {
  const probe = { ...account.freeNet };
  consume(probe, 0n, now);
  return probe.used;
}

function insufficientBandwidth(owner: string, bytes: bigint, fee: bigint): FakeRefusal {
  return new FakeRefusal(
    'BANDWITH_ERROR',
    `Account resource insufficient error. account [${base58Address(owner)}] has insufficient bandwidth[${bytes}] and balance[${fee}] to create new account`,
  );
}

/** CreateAccountActuator: burns getCreateNewAccountFeeInSystemContract; returns it. */
function createAccount(
  accounts: FakeTronAccounts,
  owner: FakeAccount,
  value: Json,
  context: ExecutionContext,
): bigint {
  const address = addressField(value, 'account_address');
  if (!/^41[0-9a-f]{40}$/.test(address)) throw invalid('Invalid account address');
  if (accounts.get(address)) throw invalid('Account has existed');
  const fee = BigInt(context.parameters.getCreateNewAccountFeeInSystemContract);
  if (owner.balance < fee) throw invalid('Validate CreateAccountActuator error, insufficient fee.');
  owner.balance -= fee;
  accounts.create(address, context.now);
  return fee;
}

/** TransferActuator: moves TRX; creating the receiver burns the activation fee too. */
function transferTrx(
  accounts: FakeTronAccounts,
  owner: FakeAccount,
  ownerAddress: string,
  value: Json,
  context: ExecutionContext,
): bigint {
  const to = addressField(value, 'to_address');
  const amount = amountField(value, 'amount');
  if (amount <= 0n) throw invalid('Amount must be greater than 0.');
  if (to === ownerAddress) throw invalid('Cannot transfer TRX to yourself.');
  const receiver = accounts.get(to);
  const fee = receiver ? 0n : BigInt(context.parameters.getCreateNewAccountFeeInSystemContract);
  if (owner.balance < amount + fee) {
    throw invalid('Validate TransferContract error, balance is not sufficient.');
  }
  owner.balance -= amount + fee;
  (receiver ?? accounts.create(to, context.now)).balance += amount;
  return fee;
}

function resourceField(value: Json): FakeResource {
  const resource = value.resource ?? 'BANDWIDTH';
  if (resource !== 'BANDWIDTH' && resource !== 'ENERGY') {
    throw invalid(`ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]`);
  }
  return resource;
}

function amountField(value: Json, name: string): bigint {
  const amount = value[name] ?? 0;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) throw invalid(`bad ${name}`);
  return BigInt(amount);
}

/** FreezeBalanceV2Actuator: TRX from the balance to the stake for a resource. */
function freeze(account: FakeAccount, value: Json): void {
  const amount = amountField(value, 'frozen_balance');
  const resource = resourceField(value);
  if (amount <= 0n) throw invalid('frozenBalance must be positive');
  if (amount < SUN_PER_TRX) throw invalid('frozenBalance must be greater than or equal to 1 TRX');
  if (amount > account.balance) {
    throw invalid('frozenBalance must be less than or equal to accountBalance');
  }
  account.balance -= amount;
  account.frozen[resource] += amount;
}

/** DelegateResourceActuator: lends the resource of `balance` sun of stake (lock is not modelled). */
function delegate(
  accounts: FakeTronAccounts,
  owner: FakeAccount,
  ownerAddress: string,
  value: Json,
  now: number,
): void {
  const amount = amountField(value, 'balance');
  const resource = resourceField(value);
  const receiverAddress = addressField(value, 'receiver_address');
  if (amount < SUN_PER_TRX) throw invalid('delegateBalance must be greater than or equal to 1 TRX');
  if (receiverAddress === ownerAddress) {
    throw invalid('receiverAddress must not be the same as ownerAddress');
  }
  const receiver = accounts.get(receiverAddress);
  if (!receiver) throw invalid(`Account [${base58Address(receiverAddress)}] does not exist`);
  if (accounts.delegatable(owner, resource, now) < amount) {
    const name = resource === 'ENERGY' ? 'FreezeEnergyV2' : 'FreezeBandwidthV2';
    throw invalid(`delegateBalance must be less than or equal to available ${name} balance`);
  }
  owner.frozen[resource] -= amount;
  owner.delegatedOut[resource] += amount;
  receiver.acquired[resource] += amount;
  const delegated = accounts.delegated(ownerAddress, receiverAddress);
  accounts.setDelegated(ownerAddress, receiverAddress, {
    ...delegated,
    [resource]: delegated[resource] + amount,
  });
}

/**
 * UnDelegateResourceActuator: takes the stake back. The receiver's used energy moves to the owner
 * in proportion to the stake taken back (java-tron does so, so that undelegating does not reset
 * usage): the staking account recovers it over the day.
 */
function undelegate(
  accounts: FakeTronAccounts,
  owner: FakeAccount,
  ownerAddress: string,
  value: Json,
  now: number,
): void {
  const amount = amountField(value, 'balance');
  const resource = resourceField(value);
  const receiverAddress = addressField(value, 'receiver_address');
  if (amount <= 0n) throw invalid('unDelegateBalance must be more than 0 TRX');
  const delegated = accounts.delegated(ownerAddress, receiverAddress);
  if (delegated[resource] < amount) {
    const name = resource === 'ENERGY' ? 'Energy' : 'Bandwidth';
    throw invalid(
      `insufficient delegatedFrozenBalance(${name}), request=${amount}, unlock_balance=${delegated[resource]}`,
    );
  }
  const receiver = accounts.get(receiverAddress);
  if (receiver) {
    const usage = resource === 'ENERGY' ? 'energy' : 'net';
    consume(receiver[usage], 0n, now);
    const receiverStake = receiver.frozen[resource] + receiver.acquired[resource];
    const moved = receiverStake > 0n ? (receiver[usage].used * amount) / receiverStake : 0n;
    receiver[usage].used -= moved;
    consume(owner[usage], moved, now);
    receiver.acquired[resource] -= amount;
  }
  owner.delegatedOut[resource] -= amount;
  owner.frozen[resource] += amount;
  accounts.setDelegated(ownerAddress, receiverAddress, {
    ...delegated,
    [resource]: delegated[resource] - amount,
  });
}

function receiptOf(entries: Record<string, bigint>): Json {
  return Object.fromEntries(
    Object.entries(entries)
      .filter(([, value]) => value !== 0n)
      .map(([key, value]) => [key, Number(value)]),
  );
}

/** A system contract's info: `fee` is the bandwidth burnt plus the contract's own fee. */
function systemOutcome(bandwidth: Bandwidth, contractFee: bigint): ExecutionOutcome {
  const fee = bandwidth.netFee + contractFee;
  return {
    contractRet: 'SUCCESS',
    info: {
      ...(fee > 0n ? { fee: Number(fee) } : {}),
      contractResult: [''],
      receipt: receiptOf({ net_usage: bandwidth.netUsage, net_fee: bandwidth.netFee }),
    },
  };
}

function triggerContract(
  state: FakeTronState,
  account: FakeAccount,
  owner: string,
  value: Json,
  rawData: Json,
  bandwidth: Bandwidth,
  context: ExecutionContext,
): ExecutionOutcome {
  const { parameters, now } = context;
  const contract = addressField(value, 'contract_address');
  const feeLimit = rawData.fee_limit ?? 0;
  if (
    typeof feeLimit !== 'number' ||
    !Number.isSafeInteger(feeLimit) ||
    feeLimit < 0 ||
    feeLimit > parameters.getMaxFeeLimit
  ) {
    throw invalid(`feeLimit must be >= 0 and <= ${parameters.getMaxFeeLimit}`);
  }
  if (!context.hasContract(contract)) {
    throw invalid('No contract or not a valid smart contract');
  }
  const price = BigInt(parameters.getEnergyFee);
  const ownEnergy = state.accounts.energyLeft(account, now);
  const fromBalance = price > 0n ? account.balance / price : 0n;
  const fromFeeLimit = price > 0n ? BigInt(feeLimit) / price : ownEnergy + fromBalance;
  const energyLimit =
    ownEnergy + fromBalance < fromFeeLimit ? ownEnergy + fromBalance : fromFeeLimit;

  const call = callEnergy(state.tokens, contract, owner, value.data);
  const { needed, transfer } = call;
  let failure: FakeFailure | undefined = call.failure;
  if (needed > energyLimit) failure = 'OUT_OF_ENERGY';
  const used = failure === 'OUT_OF_ENERGY' ? energyLimit : needed;
  const fromOwn = used < ownEnergy ? used : ownEnergy;
  const burnt = (used - fromOwn) * price;
  if (fromOwn > 0n) consume(account.energy, fromOwn, now);
  account.balance -= burnt;

  const logs: Json[] = [];
  if (transfer && !failure) {
    state.tokens.transfer(contract, owner, transfer.to, transfer.amount);
    logs.push(transferLog(contract, owner, transfer.to, transfer.amount.toString(16)));
  }
  const fee = burnt + bandwidth.netFee;
  return {
    contractRet: failure ?? 'SUCCESS',
    info: {
      ...(fee > 0n ? { fee: Number(fee) } : {}),
      contractResult: [failure ? '' : word('1')],
      contract_address: contract,
      receipt: {
        ...receiptOf({
          energy_usage: fromOwn,
          energy_fee: burnt,
          energy_usage_total: used,
          net_usage: bandwidth.netUsage,
          net_fee: bandwidth.netFee,
        }),
        result: failure ?? 'SUCCESS',
      },
      ...(failure ? { result: 'FAILED', resMessage: utf8Hex(FAILURE_MESSAGES[failure]) } : {}),
      ...(logs.length ? { log: logs } : {}),
    },
  };
}

/**
 * The energy a contract call needs and how it ends, before any limit: a TRC-20 transfer() moves
 * the token (64,285 to a holder, 130,285 to a new holder) or reverts when the sender lacks it.
 */
export function callEnergy(
  tokens: FakeTronBalances,
  contract: string,
  owner: string,
  data: unknown,
): { needed: bigint; failure?: 'REVERT'; transfer?: { to: string; amount: bigint } } {
  const call = TRANSFER_CALL.exec(typeof data === 'string' ? data : '');
  if (!call) return { needed: OTHER_CALL_ENERGY };
  const to = `41${call[1].toLowerCase()}`;
  const amount = BigInt(`0x${call[2]}`);
  if (!tokens.canTransfer(contract, owner, amount))
    return { needed: REVERT_ENERGY, failure: 'REVERT' };
  const holds = tokens.tokenOf(contract, to) > 0n;
  const needed = holds ? TRANSFER_TO_HOLDER_ENERGY : TRANSFER_TO_NEW_HOLDER_ENERGY;
  return { needed, transfer: { to, amount } };
}
