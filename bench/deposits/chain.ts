import { Interface, parseUnits, toQuantity, Transaction, Wallet } from 'ethers';
import { Devnet, DEVNET_ACCOUNTS, DEVNET_TOKEN_DECIMALS } from '../../test/support/devnet';
import { sleep, timestamp } from './clock';

/*
 * The benchmark's own side of the chain: USDT transfers from the devnet's payer, signed here and
 * sent raw. Timing-sensitive calls go through a plain JSON-RPC client: the devnet's ethers provider
 * batches requests with a 10 ms stall, which would blur a "when was it mined" measured in ms.
 */

const TRANSFER = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
// Comfortably above an ERC-20 transfer to a fresh address (about 51,600 gas): transfers can be
// signed up front, without an eth_estimateGas each.
const GAS_LIMIT_PER_TRANSFER = 100_000n;
// Far above the devnet's base fee even after blocks of 100 transfers raise it by 12.5 % each:
// a transfer signed with too low a cap would wait in the pool forever.
const MAX_FEE_PER_GAS = parseUnits('100', 'gwei');
const PRIORITY_FEE_PER_GAS = parseUnits('1', 'gwei');
// anvil's default, restored after the throughput phase packed its blocks.
const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000;
const RECEIPT_POLL_MS = 2;
const RECEIPT_TIMEOUT_MS = 30_000;

/** JSON-RPC over fetch (keep-alive), one request per call. */
export class Rpc {
  private nextId = 1;

  constructor(private readonly url: string) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }
}

export interface MinedTransfer {
  txHash: string;
  blockNumber: number;
  sentAt: number;
  /** When the receipt was first there (polled every 2 ms): the block is mined by then. */
  minedAt: number;
}

export interface PackedBlocks {
  /** When the last block of the burst was mined: the throughput clock starts here. */
  lastMinedAt: number;
  burstMs: number;
  blocks: number;
  firstBlock: number;
}

/** Signs USDT transfers from the devnet's payer with consecutive nonces, without any RPC call. */
export class Payer {
  private readonly wallet = new Wallet(DEVNET_ACCOUNTS.payer.privateKey);

  private constructor(
    private readonly devnet: Devnet,
    private nonce: number,
  ) {}

  static async create(devnet: Devnet, rpc: Rpc): Promise<Payer> {
    const nonce = await rpc.call<string>('eth_getTransactionCount', [
      DEVNET_ACCOUNTS.payer.address,
      'pending',
    ]);
    // The devnet's NonceManager must not hand out the nonces we are about to use.
    devnet.payer.reset();
    return new Payer(devnet, Number(nonce));
  }

  sign(to: string, amount: string): Promise<string> {
    return this.wallet.signTransaction({
      type: 2,
      chainId: this.devnet.chainId,
      nonce: this.nonce++,
      to: this.devnet.tokens.USDT.contract,
      data: TRANSFER.encodeFunctionData('transfer', [
        to,
        parseUnits(amount, DEVNET_TOKEN_DECIMALS),
      ]),
      gasLimit: GAS_LIMIT_PER_TRANSFER,
      maxFeePerGas: MAX_FEE_PER_GAS,
      maxPriorityFeePerGas: PRIORITY_FEE_PER_GAS,
    });
  }
}

/** Sends a signed transfer on an automining devnet and waits until its receipt exists. */
export async function sendAndWaitMined(rpc: Rpc, rawTransaction: string): Promise<MinedTransfer> {
  const sentAt = timestamp();
  const txHash = await rpc.call<string>('eth_sendRawTransaction', [rawTransaction]);
  const deadline = sentAt + RECEIPT_TIMEOUT_MS;
  while (timestamp() < deadline) {
    const receipt = await rpc.call<{ blockNumber: string; status: string } | null>(
      'eth_getTransactionReceipt',
      [txHash],
    );
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`Transfer ${txHash} reverted.`);
      return { txHash, blockNumber: Number(receipt.blockNumber), sentAt, minedAt: timestamp() };
    }
    await sleep(RECEIPT_POLL_MS);
  }
  throw new Error(`Transfer ${txHash} not mined within ${RECEIPT_TIMEOUT_MS} ms.`);
}

export interface QueuedTransfers {
  firstBlock: number;
  gasPerTransfer: number;
}

/**
 * Puts every transfer in the pool with mining off: the watcher sees nothing of them until
 * mineQueued. It then meets the whole backlog at once, as after a busy minute on a real chain,
 * instead of picking up each block while the rest is still being sent.
 */
export async function queueTransfers(
  rpc: Rpc,
  rawTransactions: string[],
): Promise<QueuedTransfers> {
  const firstBlock = Number(await rpc.call<string>('eth_blockNumber')) + 1;
  const gasPerTransfer = await gasOfOneTransfer(rpc, rawTransactions[0]);
  await rpc.call('evm_setAutomine', [false]);
  for (const raw of rawTransactions) await rpc.call('eth_sendRawTransaction', [raw]);
  return { firstBlock, gasPerTransfer };
}

/** Mines the queued transfers back to back, perBlock to a block, then automines again. */
export async function mineQueued(
  rpc: Rpc,
  queued: QueuedTransfers,
  perBlock: number,
): Promise<PackedBlocks> {
  try {
    // anvil fills a block while the gas used so far plus the next transaction's gas limit fits:
    // this limit admits exactly perBlock transfers (half a transfer of slack either way).
    const blockGasLimit =
      (perBlock - 1) * queued.gasPerTransfer +
      Number(GAS_LIMIT_PER_TRANSFER) +
      queued.gasPerTransfer / 2;
    await rpc.call('evm_setBlockGasLimit', [toQuantity(Math.floor(blockGasLimit))]);
    const burstStartedAt = timestamp();
    let blocks = 0;
    while (await hasPendingTransactions(rpc)) {
      await rpc.call('evm_mine');
      blocks++;
    }
    const lastMinedAt = timestamp();
    return {
      lastMinedAt,
      burstMs: lastMinedAt - burstStartedAt,
      blocks,
      firstBlock: queued.firstBlock,
    };
  } finally {
    await rpc.call('evm_setBlockGasLimit', [toQuantity(DEFAULT_BLOCK_GAS_LIMIT)]);
    await rpc.call('evm_setAutomine', [true]);
  }
}

/** Transactions per block, read after the measurement (the watcher's RPC calls are counted). */
export async function transactionsPerBlock(
  rpc: Rpc,
  firstBlock: number,
  blocks: number,
): Promise<number[]> {
  const counts: number[] = [];
  for (let number = firstBlock; number < firstBlock + blocks; number++) {
    const count = await rpc.call<string>('eth_getBlockTransactionCountByNumber', [
      toQuantity(number),
    ]);
    counts.push(Number(count));
  }
  return counts;
}

/** Empty blocks, mined at once; returns the new head. */
export async function mineEmptyBlocks(rpc: Rpc, blocks: number): Promise<number> {
  await rpc.call('anvil_mine', [toQuantity(blocks)]);
  return Number(await rpc.call<string>('eth_blockNumber'));
}

export async function clientVersion(rpc: Rpc): Promise<string> {
  return rpc.call<string>('web3_clientVersion');
}

async function hasPendingTransactions(rpc: Rpc): Promise<boolean> {
  const status = await rpc.call<{ pending: string; queued: string }>('txpool_status');
  return Number(status.pending) + Number(status.queued) > 0;
}

/** Gas an ERC-20 transfer like these uses (all go to fresh addresses, so all cost the same). */
async function gasOfOneTransfer(rpc: Rpc, rawTransaction: string): Promise<number> {
  const transaction = Transaction.from(rawTransaction);
  const estimate = await rpc.call<string>('eth_estimateGas', [
    { from: transaction.from, to: transaction.to, data: transaction.data },
  ]);
  return Number(estimate);
}
