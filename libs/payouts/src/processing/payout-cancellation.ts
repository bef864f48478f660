import { Injectable, Logger } from '@nestjs/common';
import { formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { EvmFees, HotWalletKey, NetworkName, NetworkRegistry } from '@app/chains';
import { HotWallets } from './hot-wallets';
import { PayoutBroadcaster } from './payout-broadcaster';
import { PayoutAttempt, PayoutJournalRepository } from './payout-journal.repository';
import { minimumReplacementFees, PayoutSigner } from './payout-signer';

/** An operator's cancel that does not apply as things stand; the message says why (no secret). */
export class PayoutCancelRefused extends Error {}

export interface CancelNonceRequest {
  network: NetworkName;
  nonce: number;
  /**
   * `--key-file`: the key of the wallet that signed the payout's attempts, when HOT_WALLETS_FILE
   * holds another one (the key was rotated) or none.
   */
  keyFromFile?: HotWalletKey;
  /** `--max-fee-gwei`: a cap of maxFeePerGas for this cancel instead of PAYOUT_MAX_FEE_GWEI. */
  maxFeePerGas?: bigint;
}

export interface CancelNonceResult {
  payout_id: string;
  network: string;
  nonce: number;
  wallet_address: string;
  cancel_tx_hash: string;
  /** The live attempts with that nonce that the cancel outbids. */
  replaces: string[];
  max_fee_per_gas_gwei: string;
  max_priority_fee_per_gas_gwei: string;
  /** What the node answered ('accepted', 'already_known', 'rejected: ...', or 'no answer'). */
  broadcast: string;
}

// What the cancel costs at most: a value transfer to an account without code.
const CANCEL_GAS = 21_000n;

/**
 * `payouts:cancel-nonce`: the operator's exit for an EVM payout stuck in `Processing` (its
 * transaction refused for good, or signed by a key since rotated). A zero-value send from the
 * wallet to itself takes the payout's nonce; the tracker fails the payout, funds released, once
 * that send is mined and confirmed: the positive proof that no transfer of it can be mined. It
 * is journaled as an attempt of the payout (purpose 'cancel') before it is broadcast.
 */
@Injectable()
export class PayoutCancellation {
  private readonly logger = new Logger(PayoutCancellation.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly journal: PayoutJournalRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly broadcaster: PayoutBroadcaster,
  ) {}

  async cancelNonce(request: CancelNonceRequest): Promise<CancelNonceResult> {
    const { network: name, nonce } = request;
    if (this.networks.get(name).chainFamily !== 'EVM') {
      throw new PayoutCancelRefused(
        `${name} has no nonces: payouts:cancel-nonce applies to EVM networks only.`,
      );
    }
    const { payoutId, wallet } = this.heldBy(
      name,
      nonce,
      await this.journal.liveAttemptsWithNonce(name, nonce),
      request.keyFromFile,
    );
    const key = this.keyFor(name, payoutId, wallet, request.keyFromFile);
    const transport = this.signer.evm(name);
    // Reads first, outside any transaction: a slow node never holds the payout's lock.
    if ((await transport.transactionCount(wallet, 'latest')) > nonce) {
      throw new PayoutCancelRefused(
        `Nonce ${nonce} of ${wallet} is already used on ${name}: the tracker decides payout ` +
          `${payoutId} from the block that used it (npm run cli -- payouts:track --network ${name}).`,
      );
    }
    const [{ token_contract: token }]: Array<{ token_contract: string }> =
      await this.dataSource.query(`SELECT token_contract FROM payouts WHERE id = $1`, [payoutId]);
    const [suggested, { native }] = await Promise.all([
      transport.suggestFees(),
      transport.balances(wallet, token),
    ]);
    const cap = request.maxFeePerGas ?? this.signer.maxFeePerGas(name);
    const journaled = await this.dataSource.transaction(async (manager) => {
      const payout = await this.journal.lockProcessing(manager, payoutId);
      if (!payout) {
        throw new PayoutCancelRefused(`Payout ${payoutId} is no longer Processing: nothing to do.`);
      }
      const live = (await this.journal.liveAttempts(manager, payoutId)).filter(
        (attempt) => Number(attempt.nonce) === nonce && attempt.wallet_address === wallet,
      );
      if (!live.length) {
        throw new PayoutCancelRefused(
          `Payout ${payoutId} holds nonce ${nonce} no more (signed again meanwhile): look again.`,
        );
      }
      const highest = highestFees(live);
      const fees = this.signer.replacementFees(name, highest, suggested, cap);
      if (!fees) {
        const wanted = minimumReplacementFees(highest, suggested);
        throw new PayoutCancelRefused(
          `A cancel of nonce ${nonce} must bid a maxFeePerGas of at least ` +
            `${gwei(wanted.maxFeePerGas)} gwei (12.5 % over the ${gwei(highest.maxFeePerGas)} ` +
            `gwei of payout ${payoutId}'s transactions, and at least the node's suggestion of ` +
            `${gwei(suggested.maxFeePerGas)} gwei), above the cap of ${gwei(cap)} gwei: ` +
            `run it again with --max-fee-gwei ${gwei(wanted.maxFeePerGas)} or more.`,
        );
      }
      if (native < CANCEL_GAS * fees.maxFeePerGas) {
        throw new PayoutCancelRefused(
          `${wallet} holds ${formatUnits(native, 18)} of ${name}'s native coin; the cancel may ` +
            `cost up to ${formatUnits(CANCEL_GAS * fees.maxFeePerGas, 18)}: fund it first.`,
        );
      }
      const attempt = await this.signer.journalEvmCancel(manager, payout, key, nonce, fees);
      return { attempt, replaces: live.map((a) => a.tx_hash), fees };
    });
    const { attempt, replaces, fees } = journaled;
    this.logger.log(
      { payoutId, nonce, wallet, txHash: attempt.tx_hash, replaces },
      'Payout nonce cancelled by an operator: a zero-value send journaled',
    );
    const answer = await this.broadcaster.broadcast(attempt);
    return {
      payout_id: payoutId,
      network: name,
      nonce,
      wallet_address: wallet,
      cancel_tx_hash: attempt.tx_hash,
      replaces,
      max_fee_per_gas_gwei: gwei(fees.maxFeePerGas),
      max_priority_fee_per_gas_gwei: gwei(fees.maxPriorityFeePerGas),
      broadcast:
        answer === null
          ? 'no answer'
          : answer.kind === 'rejected'
            ? `rejected: ${answer.reason}`
            : answer.kind,
    };
  }

  /**
   * The payout holding the nonce. Two wallets of the network may both have one in flight (a key
   * rotated with payouts of both keys on their way): then the key at hand says which.
   */
  private heldBy(
    name: NetworkName,
    nonce: number,
    attempts: PayoutAttempt[],
    keyFromFile: HotWalletKey | undefined,
  ): { payoutId: string; wallet: string } {
    const holders = new Map<string, { payoutId: string; wallet: string }>();
    for (const attempt of attempts) {
      holders.set(`${attempt.payout_id} ${attempt.wallet_address}`, {
        payoutId: attempt.payout_id,
        wallet: attempt.wallet_address,
      });
    }
    const all = [...holders.values()];
    if (!all.length) {
      throw new PayoutCancelRefused(
        `No payout in Processing holds nonce ${nonce} of a ${name} hot wallet.`,
      );
    }
    if (all.length === 1) return all[0];
    const keyAddresses = [this.wallets.get(name)?.address, keyFromFile?.address];
    const matching = all.filter((holder) => keyAddresses.includes(holder.wallet));
    if (matching.length === 1) return matching[0];
    throw new PayoutCancelRefused(
      `Nonce ${nonce} is held by ${all.map((h) => `payout ${h.payoutId} (wallet ${h.wallet})`).join(', ')}: ` +
        'give --key-file with the key of the one to cancel, and no other key of those wallets.',
    );
  }

  /** HOT_WALLETS_FILE's key if it signed the payout's transactions, else the --key-file one. */
  private keyFor(
    name: NetworkName,
    payoutId: string,
    wallet: string,
    keyFromFile: HotWalletKey | undefined,
  ): HotWalletKey {
    const configured = this.wallets.get(name);
    if (configured?.address === wallet) return configured;
    if (keyFromFile?.address === wallet) return keyFromFile;
    if (keyFromFile) {
      throw new PayoutCancelRefused(
        `The --key-file key of ${name} is of ${keyFromFile.address}, but payout ${payoutId}'s ` +
          `transactions are from ${wallet}: give that wallet's key.`,
      );
    }
    const held = configured
      ? `HOT_WALLETS_FILE holds the key of ${configured.address} (rotated since?)`
      : `HOT_WALLETS_FILE holds no key for ${name}`;
    throw new PayoutCancelRefused(
      `Payout ${payoutId}'s transactions are from ${wallet}, and ${held}: give ${wallet}'s key ` +
        `with --key-file PATH (a JSON file like HOT_WALLETS_FILE: {"${name}": {"privateKey": "0x..."}}).`,
    );
  }
}

function highestFees(attempts: PayoutAttempt[]): EvmFees {
  let maxFeePerGas = 0n;
  let maxPriorityFeePerGas = 0n;
  for (const attempt of attempts) {
    const fee = BigInt(attempt.max_fee_per_gas ?? '0');
    const tip = BigInt(attempt.max_priority_fee_per_gas ?? '0');
    if (fee > maxFeePerGas) maxFeePerGas = fee;
    if (tip > maxPriorityFeePerGas) maxPriorityFeePerGas = tip;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

function gwei(wei: bigint): string {
  return formatUnits(wei, 'gwei').replace(/\.0$/, '');
}
