import { id, Interface, toQuantity } from 'ethers';
import type { Receipt, Rpc } from './chain';

// Reads of what a measured window left on the devnet: transfers, balances and receipts, read
// afterwards in bulk to verify a benchmark's figures against the chain.

const BALANCE_OF = new Interface(['function balanceOf(address owner) view returns (uint256)']);
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

export interface TransferLog {
  blockNumber: number;
  txHash: string;
  from: string;
  to: string;
  /** Base units. */
  amount: bigint;
}

/** The token's Transfer logs in a block range (read after a measured window). */
export async function transferLogs(
  rpc: Rpc,
  token: string,
  fromBlock: number,
  toBlock: number,
): Promise<TransferLog[]> {
  const logs: TransferLog[] = [];
  const step = 20;
  for (let from = fromBlock; from <= toBlock; from += step) {
    const answer = await rpc.call<
      Array<{ blockNumber: string; transactionHash: string; topics: string[]; data: string }>
    >('eth_getLogs', [
      {
        address: token,
        topics: [TRANSFER_TOPIC],
        fromBlock: toQuantity(from),
        toBlock: toQuantity(Math.min(toBlock, from + step - 1)),
      },
    ]);
    for (const log of answer) {
      logs.push({
        blockNumber: Number(log.blockNumber),
        txHash: log.transactionHash.toLowerCase(),
        from: topicAddress(log.topics[1]),
        to: topicAddress(log.topics[2]),
        amount: BigInt(log.data),
      });
    }
  }
  return logs;
}

/** The holder's balance of an ERC-20 token, in base units, at the latest block. */
export async function tokenBalance(rpc: Rpc, token: string, holder: string): Promise<bigint> {
  const data = BALANCE_OF.encodeFunctionData('balanceOf', [holder]);
  return BigInt(await rpc.call<string>('eth_call', [{ to: token, data }, 'latest']));
}

export interface MinedReceipt {
  blockNumber: number;
  succeeded: boolean;
}

/** Receipts by lower-case transaction hash, 100 to a JSON-RPC batch; a hash not mined is absent. */
export async function receipts(rpc: Rpc, txHashes: string[]): Promise<Map<string, MinedReceipt>> {
  const found = new Map<string, MinedReceipt>();
  for (let start = 0; start < txHashes.length; start += 100) {
    const hashes = txHashes.slice(start, start + 100);
    const answers = await rpc.batch(
      hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })),
    );
    answers.forEach((answer, index) => {
      if (answer.error !== undefined) throw new Error(answer.error);
      const receipt = answer.result as Receipt | null;
      if (receipt) {
        found.set(hashes[index].toLowerCase(), {
          blockNumber: Number(receipt.blockNumber),
          succeeded: receipt.status === '0x1',
        });
      }
    });
  }
  return found;
}

function topicAddress(topic: string): string {
  return `0x${topic.slice(-40)}`.toLowerCase();
}
