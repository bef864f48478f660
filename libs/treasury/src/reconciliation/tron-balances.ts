import { AbiCoder } from 'ethers';
import { TronWeb } from 'tronweb';
import { NetworkConfig } from '@app/chains';
import { readHeadBlockNumber } from '@app/chains/adapters/tron/tron-chain-reads';
import { TronNodeClient } from '@app/chains/adapters/tron/tron-node-client';
import { TronResponseError } from '@app/chains/adapters/tron/tron-errors';
import { parseUint256Result } from '@app/chains/payouts/tron-payout-responses';
import { BalanceQuery, ChainBalanceReader, mapConcurrently } from './balance-reads';

// java-tron has no batch call: one request per balance, this many in flight (TronGrid's
// per-key limit is in the tens per second; a node of our own takes far more).
const PARALLEL_REQUESTS = 16;

type Json = Record<string, unknown>;

/**
 * The TRX an account owns, in sun, from getaccount: its liquid `balance`, what it staked
 * (`frozenV2`), what of its stake it lends (java-tron moves a delegation out of `frozenV2` into
 * `delegated_frozenV2_balance_for_*`) and what it unstaked and may withdraw (`unfrozenV2`). A
 * staking account that stakes or lends TRX still owns it: the books never see it move. Zero
 * fields are left out by java-tron; `{}` is no account (0).
 */
export function parseOwnedTrx(value: unknown): bigint {
  if (!isObject(value)) throw new TronResponseError('malformed response: account is not an object');
  const sun = (field: unknown, what: string): bigint => {
    if (field === undefined) return 0n;
    if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < 0) {
      throw new TronResponseError(`malformed response: account ${what}`);
    }
    return BigInt(field);
  };
  const list = (field: unknown): Json[] => (Array.isArray(field) ? field.filter(isObject) : []);
  const resource = isObject(value.account_resource) ? value.account_resource : {};
  let owned = sun(value.balance, 'balance');
  for (const stake of list(value.frozenV2)) owned += sun(stake.amount, 'frozenV2 amount');
  for (const unstaking of list(value.unfrozenV2)) {
    owned += sun(unstaking.unfreeze_amount, 'unfrozenV2 amount');
  }
  owned += sun(value.delegated_frozenV2_balance_for_bandwidth, 'delegated bandwidth stake');
  owned += sun(resource.delegated_frozenV2_balance_for_energy, 'delegated energy stake');
  return owned;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Balances from a java-tron full node: triggerconstantcontract balanceOf per token balance,
 * getaccount per TRX balance (what the account owns: liquid, staked, lent and unstaking). Its HTTP API answers the current state only, so the block is the
 * head read before the balances.
 */
export class TronNodeBalances implements ChainBalanceReader {
  private readonly node: TronNodeClient;

  constructor(
    private readonly network: NetworkConfig,
    apiKey: string | undefined,
  ) {
    this.node = new TronNodeClient(network, { apiKey });
  }

  readBlock(): Promise<number> {
    return readHeadBlockNumber(this.node, this.network.name);
  }

  read(queries: BalanceQuery[]): Promise<bigint[]> {
    return mapConcurrently(queries, PARALLEL_REQUESTS, (query) => this.readOne(query));
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own.
  }

  private readOne({ address, token }: BalanceQuery): Promise<bigint> {
    const owner = TronWeb.address.toHex(address).toLowerCase();
    if (token === null) {
      return this.node.request(
        'wallet/getaccount',
        { address: owner, visible: false },
        parseOwnedTrx,
      );
    }
    return this.node.request(
      'wallet/triggerconstantcontract',
      {
        owner_address: owner,
        contract_address: TronWeb.address.toHex(token).toLowerCase(),
        function_selector: 'balanceOf(address)',
        parameter: AbiCoder.defaultAbiCoder()
          .encode(['address'], [`0x${owner.slice(2)}`])
          .slice(2),
        visible: false,
      },
      parseUint256Result,
    );
  }
}
