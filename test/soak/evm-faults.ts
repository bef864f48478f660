import { Contract, ContractTransactionResponse, parseUnits, toQuantity } from 'ethers';
import type { Devnet, DevnetTransfer } from '../support/devnet';
import { waitFor } from '../support/wait-for';

/** Runtime code that reverts every call: PUSH1 0, PUSH1 0, REVERT. */
export const REVERTING_CODE = '0x60006000fd';

/** One of our transactions waiting in anvil's pool when a fault struck. */
export interface PooledTransaction {
  hash: string;
  from: string;
  nonce: number;
}

interface PoolContent {
  pending: Record<string, Record<string, { hash: string; from: string; nonce: string }>>;
}

/** The pending transactions of `senders` in anvil's pool, by sender (lower case). */
async function pooled(devnet: Devnet, senders: string[]): Promise<PooledTransaction[]> {
  const pool: PoolContent = await devnet.provider.send('txpool_content', []);
  const wanted = new Set(senders.map((sender) => sender.toLowerCase()));
  return Object.entries(pool.pending)
    .filter(([from]) => wanted.has(from.toLowerCase()))
    .flatMap(([, byNonce]) =>
      Object.values(byNonce).map((tx) => ({
        hash: tx.hash.toLowerCase(),
        from: tx.from.toLowerCase(),
        nonce: Number(tx.nonce),
      })),
    );
}

export interface Strike {
  apply(): Promise<void>;
  undo(): Promise<void>;
}

/**
 * Stops mining, does `before` (payments mined in one block, payouts asked for), and waits until
 * every one of `senders` and `atLeast` of our transactions in all wait in the pool (the worker
 * signs and sends with the chain standing still). Then `whilePooled` (a SIGKILL: the worker dies
 * with them in flight) and, with `strike`, the fault that shapes the next block, mined at once
 * and undone. What was pooled is returned.
 */
export async function standStill(
  devnet: Devnet,
  senders: string[],
  what: string,
  steps: {
    before: () => Promise<void>;
    atLeast: number;
    whilePooled: () => Promise<void>;
    strike?: Strike;
  },
): Promise<PooledTransaction[]> {
  await devnet.provider.send('evm_setIntervalMining', [0]);
  try {
    await steps.before();
    let caught: PooledTransaction[] = [];
    await waitFor(
      async () => {
        caught = await pooled(devnet, senders);
        return (
          caught.length >= steps.atLeast &&
          senders.every((sender) => caught.some((tx) => tx.from === sender.toLowerCase()))
        );
      },
      120_000,
      `${what}: ${steps.atLeast} transactions of ${senders.join(', ')} in the pool`,
    );
    await steps.whilePooled();
    if (steps.strike) {
      await steps.strike.apply();
      try {
        await devnet.provider.send('evm_mine', []);
      } finally {
        await steps.strike.undo();
      }
    }
    return caught;
  } finally {
    await devnet.provider.send('evm_setIntervalMining', [1]);
  }
}

/**
 * For one block every call into `contracts` reverts (the tokens, the sweep delegate): a payout's
 * transfer and a sweep batch already in the pool, estimated against working code, are mined and
 * revert, their gas spent all the same.
 */
export function revertingBlock(devnet: Devnet, contracts: string[]): Strike {
  let codes: string[] = [];
  return {
    async apply() {
      codes = await Promise.all(contracts.map((contract) => devnet.provider.getCode(contract)));
      for (const contract of contracts)
        await devnet.provider.send('anvil_setCode', [contract, REVERTING_CODE]);
    },
    async undo() {
      for (const [i, contract] of contracts.entries())
        await devnet.provider.send('anvil_setCode', [contract, codes[i]]);
    },
  };
}

/**
 * A block whose base fee jumps to `gwei`: the bids already in the pool are below it and stay
 * there, stuck, until the trackers outbid them (the base fee falls back 12.5 % a block).
 */
export function baseFeeSpike(devnet: Devnet, gwei: string): Strike {
  return {
    async apply() {
      await devnet.provider.send('anvil_setNextBlockBaseFeePerGas', [
        toQuantity(parseUnits(gwei, 'gwei')),
      ]);
    },
    async undo() {},
  };
}

/** A mined receipt's status (1 succeeded, 0 reverted), fee and block; null while unmined. */
export async function receiptOf(
  devnet: Devnet,
  hash: string,
): Promise<{ status: number; fee: bigint; blockNumber: number; from: string } | null> {
  const receipt: {
    status: string;
    gasUsed: string;
    effectiveGasPrice: string;
    blockNumber: string;
    from: string;
  } | null = await devnet.provider.send('eth_getTransactionReceipt', [hash]);
  if (!receipt) return null;
  return {
    status: Number(receipt.status),
    fee: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice),
    blockNumber: Number(receipt.blockNumber),
    from: receipt.from.toLowerCase(),
  };
}

const TRANSFER_ABI = ['function transfer(address to, uint256 amount) returns (bool)'];

/**
 * The payer's transfers mined together in exactly one block, leaving interval mining as it is:
 * inside standStill the chain then stands still on that block, and what the worker does
 * about those payments (sweeps) waits in the pool for the strike.
 */
export async function payInOneBlock(devnet: Devnet, transfers: DevnetTransfer[]): Promise<void> {
  const sent: ContractTransactionResponse[] = [];
  for (const transfer of transfers) {
    const token = devnet.tokens[transfer.currency];
    const contract = new Contract(token.contract, TRANSFER_ABI, devnet.payer);
    const amount = parseUnits(transfer.amount, token.decimals);
    // A fixed gas limit: the estimate holds for the state before the block, and a sweep of the
    // recipient earlier in the same block makes the transfer's storage write dearer (zero to
    // non-zero), which ran an estimated transfer out of gas.
    const send = contract.getFunction('transfer');
    sent.push((await send(transfer.to, amount, { gasLimit: 120_000 })) as never);
  }
  await devnet.provider.send('evm_mine', []);
  for (const response of sent) {
    const receipt = await response.wait();
    if (receipt?.status !== 1) throw new Error(`payment ${response.hash} did not succeed`);
  }
}
