import { randomBytes, randomInt } from 'node:crypto';
import { getAddress, hexlify } from 'ethers';
import { pendingNonces, Rpc, unlockedTransfer } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import type { HeadTracker } from '../kit/heads';
import { distribution } from '../kit/stats';

/*
 * The rest of a busy chain: token transfers between addresses that are not ours, `perBlock` of
 * them in every block, as on Ethereum where the USDT contract alone logs a few hundred transfers
 * a block. After each new head they go out in four JSON-RPC batches of eth_sendTransaction, at
 * 10, 30, 50 and 70 % of the block time (transactions reach a real node all the time, not in one
 * burst just when the watcher reads the new block), from anvil's unlocked spare accounts (anvil
 * signs: no signing CPU in the benchmark), spread over the senders with nonces counted here, to
 * fresh random addresses, for 0.01 to 100.00 tokens: all of them land in the next block.
 */

// 0.01 to 100.00 tokens of 6 decimals, in base units.
const MIN_BASE_UNITS = 10_000;
const MAX_BASE_UNITS = 100_000_001;
/** The most one foreign transfer sends, for the minting up front. */
export const MAX_FOREIGN_TRANSFER_BASE_UNITS = BigInt(MAX_BASE_UNITS);
/** When each batch of a block goes out, as a share of the block time after the head. */
export const BATCH_MOMENTS = [0.1, 0.3, 0.5, 0.7];

export class ForeignLoad {
  private readonly batchMs: number[] = [];
  private batches = 0;
  private sent = 0;
  private errors = 0;
  private firstError: string | null = null;
  private lateBatches = 0;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  private constructor(
    private readonly rpc: Rpc,
    private readonly token: string,
    private readonly settings: { perBlock: number; blockTimeMs: number; senders: string[] },
    private readonly nonces: Map<string, number>,
  ) {}

  /** Starts sending after every new head `heads` announces, until stop(). */
  static async start(
    rpc: Rpc,
    heads: HeadTracker,
    token: string,
    settings: { perBlock: number; blockTimeMs: number; senders: string[] },
  ): Promise<ForeignLoad> {
    const nonces = await pendingNonces(rpc, settings.senders);
    const load = new ForeignLoad(rpc, token, settings, nonces);
    heads.onBlock(() => load.onBlock());
    return load;
  }

  async stop() {
    this.stopped = true;
    await this.inFlight;
    return {
      perBlock: this.settings.perBlock,
      senders: this.settings.senders,
      batches: this.batches,
      sent: this.sent,
      /** Calls anvil refused (a wrong nonce would stall the sender behind it). */
      errors: this.errors,
      firstError: this.firstError,
      /** Batches that went out after their moment (the one before was still in flight). */
      lateBatches: this.lateBatches,
      /** How long each batch took to be accepted. */
      batchMs: distribution(this.batchMs),
    };
  }

  private onBlock(): void {
    if (this.stopped || this.settings.perBlock === 0) return;
    const headSeenAt = timestamp();
    // After the previous block's batches (on a slow machine they run late, and are counted).
    const previous = this.inFlight ?? Promise.resolve();
    const current: Promise<void> = previous
      .then(() => this.sendBlock(headSeenAt))
      .finally(() => {
        if (this.inFlight === current) this.inFlight = null;
      });
    this.inFlight = current;
  }

  /** The batches of one block, each at its moment (or right after the one before, if late). */
  private async sendBlock(headSeenAt: number): Promise<void> {
    const sizes = batchSizes(this.settings.perBlock);
    for (const [index, size] of sizes.entries()) {
      if (this.stopped) return;
      const due = headSeenAt + BATCH_MOMENTS[index] * this.settings.blockTimeMs;
      const wait = due - timestamp();
      if (wait > 0) await sleep(wait);
      else this.lateBatches += 1;
      await this.sendBatch(size);
    }
  }

  private async sendBatch(size: number): Promise<void> {
    if (!size) return;
    const senders = this.settings.senders;
    const calls = Array.from({ length: size }, (_, index) => {
      const sender = senders[(this.sent + this.errors + index) % senders.length];
      const nonce = this.nonces.get(sender) as number;
      this.nonces.set(sender, nonce + 1);
      return unlockedTransfer(
        this.token,
        sender,
        nonce,
        getAddress(hexlify(randomBytes(20))),
        BigInt(randomInt(MIN_BASE_UNITS, MAX_BASE_UNITS)),
      );
    });
    const startedAt = timestamp();
    const errorsBefore = this.errors;
    try {
      const answers = await this.rpc.batch(calls);
      for (const answer of answers) {
        if (answer.error === undefined) this.sent += 1;
        else this.fail(answer.error);
      }
    } catch (error) {
      for (let index = 0; index < size; index++) {
        this.fail(error instanceof Error ? error.message : String(error));
      }
    }
    this.batchMs.push(timestamp() - startedAt);
    this.batches += 1;
    // After a refusal the counted nonces may be wrong: start again from anvil's.
    if (this.errors > errorsBefore) await this.resync();
  }

  private fail(message: string): void {
    this.errors += 1;
    this.firstError ??= message;
  }

  private async resync(): Promise<void> {
    try {
      const nonces = await pendingNonces(this.rpc, this.settings.senders);
      for (const [sender, nonce] of nonces) this.nonces.set(sender, nonce);
    } catch {
      // The next batch tries again.
    }
  }
}

/** perBlock split over the batches as evenly as whole numbers go. */
function batchSizes(perBlock: number): number[] {
  const count = BATCH_MOMENTS.length;
  return BATCH_MOMENTS.map(
    (_, index) =>
      Math.floor((perBlock * (index + 1)) / count) - Math.floor((perBlock * index) / count),
  );
}
