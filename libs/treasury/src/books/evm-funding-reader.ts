import { getAddress, zeroPadValue } from 'ethers';
import {
  ERC20_TRANSFER_TOPIC,
  NATIVE_COINS,
  NetworkConfig,
  receiptBlockHash,
  receiptFeeWei,
  requireWholeFee,
  wholeReceiptOr,
} from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { checkedTransactionHash } from '@app/chains/adapters/evm/evm-transaction-status';
import { FundingTransaction, FundingTransactionReader, MovedValue } from './funding-transaction';

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
}

interface RawReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  from: string;
  logs: RawLog[];
}

interface RawTransaction {
  from: string;
  to: string | null;
  value: string;
  blockNumber: string | null;
}

const notMined = (read: FundingTransaction): boolean => read.state !== 'mined';

/** A transaction, its raw receipt and the head after it, all from one node (one EvmRpc call). */
export class EvmFundingReader implements FundingTransactionReader {
  private readonly rpc: EvmRpc;

  constructor(private readonly network: NetworkConfig) {
    this.rpc = new EvmRpc(network);
  }

  async read(txHash: string): Promise<FundingTransaction> {
    const hash = checkedTransactionHash(txHash, this.network.name);
    // A receipt without its fee (an OP-stack l1Fee) is asked of the next URL; if none answers it
    // whole, the transaction reads as pending, as before: nothing booked on it.
    return wholeReceiptOr(this.network.name, () => this.readOnce(hash));
  }

  private async readOnce(hash: string): Promise<FundingTransaction> {
    // A fee-less receipt from one URL is not replaced by another's pending or unknown.
    return this.rpc.callReceipt('eth_getTransactionReceipt', notMined, async (provider) => {
      const transaction = (await provider.send('eth_getTransactionByHash', [
        hash,
      ])) as RawTransaction | null;
      if (!transaction) return { state: 'unknown' };
      const receipt = (await provider.send('eth_getTransactionReceipt', [
        hash,
      ])) as RawReceipt | null;
      // Without a block it is pending, checked before the fee (review r9b follow-up 3, L-1): a
      // pending receipt without l1Fee is no proof of a block.
      if (!receipt || receiptBlockHash(receipt) === null || receipt.blockNumber == null) {
        return { state: 'pending' };
      }
      const head = await provider.getBlockNumber();
      const block = Number(receipt.blockNumber);
      requireWholeFee(receipt, this.network, hash, { state: 'pending' });
      const fee = receiptFeeWei(receipt, this.network);
      if (fee === null || head < block) {
        return { state: 'pending' };
      }
      return {
        state: 'mined',
        succeeded: receipt.status === '0x1',
        block,
        confirmations: head - block + 1,
        from: getAddress(transaction.from),
        feeBaseUnits: fee,
        moves: [...this.nativeMove(transaction), ...this.tokenMoves(receipt.logs)],
      };
    });
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  private nativeMove(transaction: RawTransaction): MovedValue[] {
    const value = BigInt(transaction.value);
    if (value === 0n || !transaction.to) return [];
    const coin = NATIVE_COINS[this.network.name];
    return [
      {
        position: 'native',
        from: getAddress(transaction.from),
        to: getAddress(transaction.to),
        currency: coin.symbol,
        decimals: coin.decimals,
        amountBaseUnits: value,
      },
    ];
  }

  /** Transfer logs of the network's watched tokens (a look-alike token's logs are not ours). */
  private tokenMoves(logs: RawLog[]): MovedValue[] {
    const tokens = Object.entries(this.network.tokens).map(([currency, token]) => ({
      currency,
      decimals: token.decimals,
      contract: token.contract.toLowerCase(),
    }));
    const moves: MovedValue[] = [];
    for (const log of logs) {
      const token = tokens.find((candidate) => candidate.contract === log.address.toLowerCase());
      if (!token || log.topics.length !== 3 || log.topics[0] !== ERC20_TRANSFER_TOPIC) continue;
      moves.push({
        position: Number(log.logIndex),
        from: addressOfTopic(log.topics[1]),
        to: addressOfTopic(log.topics[2]),
        currency: token.currency,
        decimals: token.decimals,
        amountBaseUnits: BigInt(log.data),
      });
    }
    return moves;
  }
}

function addressOfTopic(topic: string): string {
  return getAddress(zeroPadValue(`0x${topic.slice(26)}`, 20));
}
