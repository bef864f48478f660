import { TronWeb } from 'tronweb';
import { NATIVE_COINS, NetworkConfig, parseTransactionFeeSun } from '@app/chains';
import {
  checkedTransactionId,
  readHeadBlockNumber,
} from '@app/chains/adapters/tron/tron-chain-reads';
import { TronNodeClient } from '@app/chains/adapters/tron/tron-node-client';
import {
  parseTransactionInfos,
  parseTransactionOutcome,
} from '@app/chains/adapters/tron/tron-responses';
import { decodeTransferLog, toLogAddress } from '@app/chains/adapters/tron/trc20-transfer-log';
import { FundingTransaction, FundingTransactionReader, MovedValue } from './funding-transaction';

type Json = Record<string, unknown>;

/** What gettransactionbyid and gettransactioninfobyid say, parsed (exported for tests). */
export function parseTronFunding(
  network: NetworkConfig,
  transactionId: string,
  transaction: unknown,
  info: unknown,
  head: number,
): FundingTransaction {
  if (!isObject(transaction) || Object.keys(transaction).length === 0) return { state: 'unknown' };
  const outcome = parseTransactionOutcome(info, transactionId);
  if (!outcome) return { state: 'pending' };
  const [contract] = contractsOf(transaction);
  const value = isObject(contract?.parameter) ? contract.parameter.value : undefined;
  const fields: Json = isObject(value) ? value : {};
  const from = typeof fields.owner_address === 'string' ? base58(fields.owner_address) : '';
  const moves: MovedValue[] = [];
  if (contract?.type === 'TransferContract' && typeof fields.to_address === 'string') {
    const amount = typeof fields.amount === 'number' ? BigInt(fields.amount) : 0n;
    const coin = NATIVE_COINS[network.name];
    if (amount > 0n) {
      moves.push({
        position: 'native',
        from,
        to: base58(fields.to_address),
        currency: coin.symbol,
        decimals: coin.decimals,
        amountBaseUnits: amount,
      });
    }
  }
  const [parsed] = parseTransactionInfos([info], outcome.blockNumber);
  const tokens = Object.entries(network.tokens).map(([currency, token]) => ({
    currency,
    decimals: token.decimals,
    logAddress: toLogAddress(token.contract),
  }));
  parsed.logs.forEach((log, index) => {
    const token = tokens.find((candidate) => candidate.logAddress === log.address);
    const transfer = token ? decodeTransferLog(log) : null;
    if (!token || !transfer) return;
    moves.push({
      position: index,
      from: transfer.from,
      to: transfer.to,
      currency: token.currency,
      decimals: token.decimals,
      amountBaseUnits: transfer.amountBaseUnits,
    });
  });
  return {
    state: 'mined',
    succeeded: outcome.succeeded,
    block: outcome.blockNumber,
    confirmations: head - outcome.blockNumber + 1,
    from,
    feeBaseUnits: parseTransactionFeeSun(info),
    moves,
  };
}

/** The transaction, its info and the head, from a java-tron node. */
export class TronFundingReader implements FundingTransactionReader {
  private readonly node: TronNodeClient;

  constructor(
    private readonly network: NetworkConfig,
    apiKey: string | undefined,
  ) {
    this.node = new TronNodeClient(network, { apiKey });
  }

  async read(txHash: string): Promise<FundingTransaction> {
    const id = checkedTransactionId(txHash.replace(/^0x/, ''), this.network.name);
    const raw = (value: unknown) => value;
    const transaction = await this.node.request('wallet/gettransactionbyid', { value: id }, raw);
    const info = await this.node.request('wallet/gettransactioninfobyid', { value: id }, raw);
    const head = await readHeadBlockNumber(this.node, this.network.name);
    return parseTronFunding(this.network, id, transaction, info, head);
  }

  async close(): Promise<void> {
    // tronweb's providers hold no connections of their own.
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contractsOf(transaction: Json): Array<Json & { type?: unknown; parameter?: unknown }> {
  const rawData = isObject(transaction.raw_data) ? transaction.raw_data : {};
  return Array.isArray(rawData.contract) ? rawData.contract.filter(isObject) : [];
}

/** 41-prefixed hex (visible=false) or base58 as given, to base58. */
function base58(address: string): string {
  return /^41[0-9a-fA-F]{40}$/.test(address) ? TronWeb.address.fromHex(address) : address;
}
