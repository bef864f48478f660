import { Injectable, Logger } from '@nestjs/common';
import { formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { EthersPayoutTransport, NetworkName, NetworkRegistry, PayoutTransports } from '@app/chains';
import { minimumReplacementFees } from '@app/payouts';
import { TreasuryCommandError } from '../books/treasury-command.error';
import { EvmSweeper } from './evm-sweeper';
import { signSweeperCancel } from './evm-top-up-signing';
import { SweepBroadcaster } from './sweep-broadcaster';
import { SweepAttemptRow, SweepJournalRepository } from './sweep-journal.repository';
import { SweepKeys } from './sweep-keys';
import { gasPriceCapWei } from './sweep-policy';

export interface SweepCancelRequest {
  network: NetworkName;
  nonce: number;
  /** `--max-fee-gwei`: a cap of maxFeePerGas for this cancel instead of maxGasPriceGwei. */
  maxFeePerGas?: bigint;
}

export interface SweepCancelResult {
  sweep_id: string;
  network: string;
  nonce: number;
  sweeper_address: string;
  cancel_tx_hash: string;
  /** The sweep's live transactions with that nonce that the cancel outbids. */
  replaces: string[];
  max_fee_per_gas_gwei: string;
  max_priority_fee_per_gas_gwei: string;
  /** What the node answered ('accepted', 'already_known', 'rejected: ...', 'error: ...'). */
  broadcast: string;
}

/**
 * `treasury:cancel-nonce`: the operator's exit for an EVM sweep stuck on the sweeper's lane (its
 * batch or top-up refused for good, or priced under a base fee that will not fall, which holds
 * every later sweep of the network behind it). A zero-value send from the sweeper to itself
 * with that nonce, outbidding every live transaction of it, journaled as an attempt of the sweep
 * (step 'cancel') before it is broadcast. The sweep still ends only on the chain's proof: the
 * cancel's confirmed receipt fails it with the cancel's fee booked (`network_fee:<network>:<tx>`,
 * out of the sweeper); a confirmed receipt of one of its own transactions ends it as usual.
 */
@Injectable()
export class SweepNonceCancellation {
  private readonly logger = new Logger(SweepNonceCancellation.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly transports: PayoutTransports,
    private readonly journal: SweepJournalRepository,
    private readonly broadcaster: SweepBroadcaster,
    private readonly evm: EvmSweeper,
  ) {}

  async cancelNonce(request: SweepCancelRequest): Promise<SweepCancelResult> {
    const { network: name, nonce } = request;
    const network = this.networks.get(name);
    if (network.chainFamily !== 'EVM') {
      throw new TreasuryCommandError(
        `${name} sweeps have no nonce: treasury:cancel-nonce applies to EVM networks only.`,
      );
    }
    const sweeper = this.keys.sweeperFor(name);
    const settings = this.keys.settings.get(name);
    if (!sweeper || !settings) {
      throw new TreasuryCommandError(
        `${name} cannot sweep here: it needs an entry in TREASURY_FILE, a key in ` +
          'SWEEPER_KEYS_FILE and its family in DEPOSIT_KEYS_FILE.',
      );
    }
    const sweepId = await this.holder(name, sweeper.address, nonce);
    const transport = this.transports.transportFor(name) as EthersPayoutTransport;
    const chain = this.evm.chainFor(name);
    // Reads first, outside any transaction: a slow node never holds the sweep's lock. The count
    // at a numbered block no lower than the freshest this service has seen (the deposit
    // watcher's cursor): a backend behind it answers an error, never a count from before a
    // block the service knows, which may have used the nonce.
    const checkedAt = Math.max(await chain.headBlock(), await this.freshestKnownBlock(name));
    if ((await transport.transactionCount(sweeper.address, checkedAt)) > nonce) {
      throw new TreasuryCommandError(
        `Nonce ${nonce} of the sweeper ${sweeper.address} is already used on ${name}: the sweep ` +
          `passes decide sweep ${sweepId} from the block that used it (npm run cli -- ` +
          `treasury:sweep --network ${name}).`,
      );
    }
    // The node's own estimate: 21,000 is refused where L1 data is paid in L2 gas (Arbitrum).
    const [suggested, native, gasLimit] = await Promise.all([
      transport.suggestFees(),
      chain.nativeBalance(sweeper.address),
      chain.plainTransferGas(sweeper.address, sweeper.address, 0n),
    ]);
    const cap = request.maxFeePerGas ?? gasPriceCapWei(settings);
    // OP-stack: the L1 data fee of the cancel, quoted for it signed at the cap (no smaller a
    // bid is longer); outside the sweep's lock, like every read.
    const l1Fee = await chain.l1DataFee(
      (
        await signSweeperCancel(sweeper.privateKey(), {
          chainId: network.chainId,
          sweeper: sweeper.address,
          nonce,
          gasLimit,
          fees: { maxFeePerGas: cap, maxPriorityFeePerGas: cap },
        })
      ).rawTransaction,
    );
    const journaled = await this.dataSource.transaction(async (manager) => {
      const sweep = await this.journal.lockLive(manager, sweepId);
      if (!sweep) {
        throw new TreasuryCommandError(`Sweep ${sweepId} is no longer Processing: nothing to do.`);
      }
      // Under the sweep's lock: a replacement journaled meanwhile is outbid too.
      const attempts = await this.journal.attempts(sweepId, manager);
      const live = attempts.filter(
        (attempt) =>
          attempt.step !== 'transfer' &&
          (attempt.status === 'Signed' || attempt.status === 'Broadcast'),
      );
      if (!live.length) {
        throw new TreasuryCommandError(
          `Sweep ${sweepId} has no transaction of nonce ${nonce} in flight: nothing to cancel.`,
        );
      }
      const highest = highestFees(live);
      const fees = minimumReplacementFees(highest, suggested);
      if (fees.maxFeePerGas > cap || fees.maxPriorityFeePerGas > fees.maxFeePerGas) {
        throw new TreasuryCommandError(
          `A cancel of nonce ${nonce} must bid a maxFeePerGas of at least ` +
            `${gwei(fees.maxFeePerGas)} gwei (12.5 % over the ${gwei(highest.maxFeePerGas)} gwei ` +
            `of sweep ${sweepId}'s transactions, and at least the node's suggestion of ` +
            `${gwei(suggested.maxFeePerGas)} gwei), above the cap of ${gwei(cap)} gwei: run it ` +
            `again with --max-fee-gwei ${gwei(fees.maxFeePerGas)} or more.`,
        );
      }
      const cost = gasLimit * fees.maxFeePerGas + l1Fee;
      if (native < cost) {
        throw new TreasuryCommandError(
          `The sweeper ${sweeper.address} holds ${formatUnits(native, 18)} of ${name}'s native ` +
            `coin; the cancel may cost up to ${formatUnits(cost, 18)}` +
            (l1Fee > 0n ? ` (of which ${formatUnits(l1Fee, 18)} of L1 data fee)` : '') +
            ': fund it first.',
        );
      }
      const signed = await signSweeperCancel(sweeper.privateKey(), {
        chainId: network.chainId,
        sweeper: sweeper.address,
        nonce,
        gasLimit,
        fees,
      });
      const attempt = await this.journal.insertAttempt(
        manager,
        sweepId,
        name,
        attempts[attempts.length - 1].attempt_number + 1,
        { ...signed, ...fees, gasLimit },
        'cancel',
      );
      return { attempt, replaces: live.map((row) => row.tx_hash), fees };
    });
    const { attempt, replaces, fees } = journaled;
    this.logger.warn(
      { sweepId, nonce, txHash: attempt.tx_hash, replaces },
      'Sweep nonce cancelled by an operator: a zero-value send journaled',
    );
    const broadcast = await this.broadcaster.broadcast(name, attempt);
    return {
      sweep_id: sweepId,
      network: name,
      nonce,
      sweeper_address: sweeper.address,
      cancel_tx_hash: attempt.tx_hash,
      replaces,
      max_fee_per_gas_gwei: gwei(fees.maxFeePerGas),
      max_priority_fee_per_gas_gwei: gwei(fees.maxPriorityFeePerGas),
      broadcast,
    };
  }

  /**
   * The highest block of this network's chain the service has seen: the deposit watcher's
   * cursor (chains:forget deletes it with the chain; 0 when the network is not watched).
   */
  private async freshestKnownBlock(network: NetworkName): Promise<number> {
    const rows: Array<{ block: string }> = await this.dataSource.query(
      `SELECT last_scanned_block::text AS block FROM chain_cursors WHERE network = $1`,
      [network],
    );
    return rows.length ? Number(rows[0].block) : 0;
  }

  /** The live sweep of this sweeper holding the nonce (EIP-7702 batch or gas top-up). */
  private async holder(network: NetworkName, sweeper: string, nonce: number): Promise<string> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM sweeps
        WHERE network = $1 AND lower(sweeper_address) = lower($2) AND nonce = $3
          AND status = 'Processing' AND kind IN ('batch', 'top_up')`,
      [network, sweeper, nonce],
    );
    if (!rows.length) {
      throw new TreasuryCommandError(
        `No sweep in Processing holds nonce ${nonce} of the ${network} sweeper ${sweeper}.`,
      );
    }
    return rows[0].id;
  }
}

function highestFees(attempts: SweepAttemptRow[]) {
  let maxFeePerGas = 0n;
  let maxPriorityFeePerGas = 0n;
  for (const attempt of attempts) {
    const fee = BigInt(attempt.max_fee_per_gas);
    const tip = BigInt(attempt.max_priority_fee_per_gas);
    if (fee > maxFeePerGas) maxFeePerGas = fee;
    if (tip > maxPriorityFeePerGas) maxPriorityFeePerGas = tip;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

function gwei(wei: bigint): string {
  return formatUnits(wei, 'gwei').replace(/\.0$/, '');
}
