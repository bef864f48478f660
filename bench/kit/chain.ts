import {
  HDNodeWallet,
  Interface,
  Mnemonic,
  parseUnits,
  toQuantity,
  Transaction,
  Wallet,
} from 'ethers';
import { Devnet, DEVNET_ACCOUNTS, DEVNET_TOKEN_DECIMALS } from '../../test/support/devnet';
import { sleep, timestamp } from './clock';

/*
 * The benchmark's own side of the chain: USDT transfers from the devnet's payer, signed here and
 * sent raw. Timing-sensitive calls go through a plain JSON-RPC client: the devnet's ethers provider
 * batches requests with a 10 ms stall, which would blur a "when was it mined" measured in ms.
 */

const TRANSFER = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
// The devnet token's owner-only mint (contracts/TestToken.sol).
const MINT = new Interface(['function mint(address to, uint256 amount)']);
// anvil's default accounts come from this public mnemonic (#0-#2 are the devnet's deployer, payer
// and hot wallet); they are unlocked, so anvil signs eth_sendTransaction from them itself.
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const FIRST_FREE_ACCOUNT = 3;
const ANVIL_ACCOUNTS = 10;
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

  /** One JSON-RPC batch (one HTTP request); each call's result or error message, in order. */
  async batch(calls: Array<{ method: string; params: unknown[] }>): Promise<BatchAnswer[]> {
    if (!calls.length) return [];
    const firstId = this.nextId;
    this.nextId += calls.length;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        calls.map((call, index) => ({ jsonrpc: '2.0', id: firstId + index, ...call })),
      ),
    });
    const body = (await response.json()) as Array<{
      id: number;
      result?: unknown;
      error?: { message: string };
    }>;
    const byId = new Map(body.map((answer) => [answer.id, answer]));
    return calls.map((call, index) => {
      const answer = byId.get(firstId + index);
      if (!answer) return { error: `${call.method}: no answer in the batch` };
      if (answer.error) return { error: `${call.method}: ${answer.error.message}` };
      return { result: answer.result };
    });
  }
}

export type BatchAnswer = { result: unknown; error?: undefined } | { error: string };

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

/** The fields of an `eth_getTransactionReceipt` answer the benchmarks read. */
export interface Receipt {
  blockNumber: string;
  status: string;
}

/** The transaction's receipt, polled every 2 ms until it exists. */
export async function waitForReceipt(
  rpc: Rpc,
  txHash: string,
  timeoutMs = RECEIPT_TIMEOUT_MS,
  pollMs = RECEIPT_POLL_MS,
): Promise<Receipt> {
  const deadline = timestamp() + timeoutMs;
  while (timestamp() < deadline) {
    const receipt = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [txHash]);
    if (receipt) return receipt;
    await sleep(pollMs);
  }
  throw new Error(`Transaction ${txHash} not mined within ${timeoutMs} ms.`);
}

/** Sends a signed transfer on an automining devnet and waits until its receipt exists. */
export async function sendAndWaitMined(rpc: Rpc, rawTransaction: string): Promise<MinedTransfer> {
  const sentAt = timestamp();
  const txHash = await rpc.call<string>('eth_sendRawTransaction', [rawTransaction]);
  const receipt = await waitForReceipt(rpc, txHash);
  const minedAt = timestamp();
  if (receipt.status !== '0x1') throw new Error(`Transfer ${txHash} reverted.`);
  return { txHash, blockNumber: Number(receipt.blockNumber), sentAt, minedAt };
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

/** Between blocks: mine every `seconds` (0 stops mining), like a real chain. */
export async function setIntervalMining(rpc: Rpc, seconds: number): Promise<void> {
  await rpc.call('evm_setIntervalMining', [seconds]);
}

/** Back to one block per transaction, after interval mining. */
export async function setAutomine(rpc: Rpc): Promise<void> {
  await rpc.call('evm_setIntervalMining', [0]);
  await rpc.call('evm_setAutomine', [true]);
}

/** anvil's unlocked default accounts from #3 on: nobody else on the devnet uses them. */
export function spareAccounts(count: number): string[] {
  if (count > ANVIL_ACCOUNTS - FIRST_FREE_ACCOUNT) {
    throw new Error(`anvil has only ${ANVIL_ACCOUNTS - FIRST_FREE_ACCOUNT} spare accounts.`);
  }
  const mnemonic = Mnemonic.fromPhrase(ANVIL_MNEMONIC);
  return Array.from(
    { length: count },
    (_, index) =>
      HDNodeWallet.fromMnemonic(mnemonic, `m/44'/60'/0'/0/${FIRST_FREE_ACCOUNT + index}`).address,
  );
}

/** Mints `baseUnits` of the token to each holder (the deployer owns it); on an automining devnet. */
export async function mintTo(
  rpc: Rpc,
  token: string,
  holders: string[],
  baseUnits: bigint,
): Promise<void> {
  for (const holder of holders) {
    const txHash = await rpc.call<string>('eth_sendTransaction', [
      {
        from: DEVNET_ACCOUNTS.deployer.address,
        to: token,
        data: MINT.encodeFunctionData('mint', [holder, baseUnits]),
        gas: toQuantity(GAS_LIMIT_PER_TRANSFER),
      },
    ]);
    const receipt = await waitForReceipt(rpc, txHash);
    if (receipt.status !== '0x1') throw new Error(`Minting to ${holder} failed (${txHash}).`);
  }
}

/** The next nonce of each account, pending transactions included. */
export async function pendingNonces(rpc: Rpc, accounts: string[]): Promise<Map<string, number>> {
  const nonces = new Map<string, number>();
  for (const account of accounts) {
    const nonce = await rpc.call<string>('eth_getTransactionCount', [account, 'pending']);
    nonces.set(account, Number(nonce));
  }
  return nonces;
}

/** An eth_sendTransaction of a token transfer from an unlocked account: anvil signs it. */
export function unlockedTransfer(
  token: string,
  from: string,
  nonce: number,
  to: string,
  baseUnits: bigint,
): { method: string; params: unknown[] } {
  return {
    method: 'eth_sendTransaction',
    params: [
      {
        from,
        to: token,
        nonce: toQuantity(nonce),
        data: TRANSFER.encodeFunctionData('transfer', [to, baseUnits]),
        gas: toQuantity(GAS_LIMIT_PER_TRANSFER),
        maxFeePerGas: toQuantity(MAX_FEE_PER_GAS),
        maxPriorityFeePerGas: toQuantity(PRIORITY_FEE_PER_GAS),
      },
    ],
  };
}
