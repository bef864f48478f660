import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { ChainError, NetworkName, PayoutTransports } from '@app/chains';
import { PendingReason, PayoutRecord } from '../payout.types';
import { HotWallets } from './hot-wallets';
import { PayoutBroadcaster } from './payout-broadcaster';
import {
  PayoutAttempt,
  PayoutJournalRepository,
  UnregisteredHotWalletError,
} from './payout-journal.repository';
import { PayoutOutcomes } from './payout-outcomes';
import { PayoutSigner, toBaseUnits, transferOrder } from './payout-signer';
import { SandboxFunding } from './sandbox-funding';

/** 'simulated': a sandbox payout that simulated money funds, parked (or a refund's, completed). */
export type SendOutcome = 'sent' | 'skipped' | 'postponed' | 'failed' | 'simulated';

/**
 * The first send of a payout: check the hot wallet can cover it, claim the payout and journal a
 * signed transaction in one database transaction, then broadcast. A crash at any line leaves
 * either a Pending payout (the reconciler sends it again) or a stored attempt (the tracker
 * re-broadcasts the same bytes); it never leaves a transaction on the wire that is not stored.
 * In the sandbox a payout that simulated money funds is never signed (SandboxFunding).
 */
@Injectable()
export class PayoutSender {
  private readonly logger = new Logger(PayoutSender.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly transports: PayoutTransports,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
    private readonly sandboxFunding: SandboxFunding,
  ) {}

  async send(payoutId: string): Promise<SendOutcome> {
    const payout = await this.journal.findSendable(payoutId);
    if (!payout) return 'skipped';
    const sandbox = this.sandboxFunding.applies();
    if (sandbox) {
      // First, before any chain read or hot wallet check: a payout that simulated money funds
      // waits for a test helper even where no hot wallet is configured. The claim checks again.
      const early = await this.dataSource.transaction(async (manager) => {
        const locked = await this.journal.lockSendable(manager, payout.id);
        return locked ? this.sandboxFunding.decide(manager, locked) : null;
      });
      if (!early) return 'skipped';
      if (early !== 'on_chain') return 'simulated';
    }
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) return this.waitOrFail(payout, 'hot_wallet_not_configured');
    let claim: PayoutAttempt | 'short' | 'short_of_gas' | 'simulated' | null;
    try {
      // Chain reads first, outside any transaction: a slow node never holds a lock.
      const wallet = await this.walletState(payout, key.address);
      const amount = transferOrder(payout).amountBaseUnits;
      if (wallet.token < amount) return this.waitOrFail(payout, 'hot_wallet_insufficient_token');
      const evmInput =
        payout.chain_family === 'EVM' ? await this.signer.evmInput(payout, key) : null;
      const gasNeeded = evmInput
        ? evmInput.gasLimit * evmInput.fees.maxFeePerGas
        : BigInt(this.config.payouts.tronFeeLimitSun);
      if (wallet.native < gasNeeded) return this.waitOrFail(payout, 'hot_wallet_insufficient_gas');
      const tronSigned = evmInput ? null : await this.signer.buildTron(payout, key);
      claim = await this.dataSource.transaction(async (manager) => {
        const locked = await this.journal.lockSendable(manager, payout.id);
        if (!locked) return null;
        // The decision that counts: under the balance's lock (to this transaction's end), so it
        // sees every earlier claim of the balance as Processing. Before the wallet's lock, so a
        // claim waiting for a balance never holds up the network's other claims.
        if (sandbox && (await this.sandboxFunding.decide(manager, locked)) !== 'on_chain') {
          return 'simulated';
        }
        // The wallet's row lock serializes claims, so what is committed below counts every
        // earlier one: a burst can never promise the same tokens twice.
        await this.journal.lockWalletNonce(manager, payout.network, key.address);
        const committed = await this.journal.committedNetAmount(
          manager,
          payout.network,
          key.address,
          payout.token_contract,
          wallet.minedCount,
        );
        if (wallet.token - toBaseUnits(committed, payout.token_decimals) < amount) return 'short';
        const fees = await this.journal.committedFees(
          manager,
          payout.network,
          key.address,
          wallet.minedCount,
          this.config.payouts.tronFeeLimitSun,
        );
        if (wallet.native - fees < gasNeeded) return 'short_of_gas';
        if (evmInput) return this.signer.journalEvmWithNewNonce(manager, locked, key, evmInput);
        return this.signer.journalTron(manager, locked, key, tronSigned!);
      });
    } catch (error) {
      if (error instanceof UnregisteredHotWalletError) {
        // Another worker registered another key for this network: it sends, this one must not.
        this.logger.error(
          { payoutId, network: error.network, address: error.address },
          "This worker's hot wallet key is not the registered one; it leaves the payout to the worker that registered it",
        );
        return 'skipped';
      }
      if (!(error instanceof ChainError)) throw error;
      this.logger.warn({ payoutId, reason: error.message }, 'Network unavailable; payout waits');
      await this.journal.postpone(payoutId, 'network_unavailable', this.retryDelayMs());
      return 'postponed';
    }
    // Short only because of payouts on their way out: they may still settle (or revert), so the
    // payout waits whatever the shortfall setting says.
    if (claim === 'short') return this.postpone(payout, 'hot_wallet_insufficient_token');
    if (claim === 'short_of_gas') return this.postpone(payout, 'hot_wallet_insufficient_gas');
    if (!claim) return 'skipped';
    if (claim === 'simulated') return 'simulated';
    await this.broadcaster.broadcast(claim);
    return 'sent';
  }

  /** EVM: balances and mined count at one block; TRON: balances now (no nonces to count from). */
  private async walletState(
    payout: PayoutRecord,
    address: string,
  ): Promise<{ token: bigint; native: bigint; minedCount: number | null }> {
    const transport = this.transports.transportFor(payout.network as NetworkName);
    if (transport.family === 'EVM') {
      return transport.walletStateAtBlock(address, payout.token_contract);
    }
    return { ...(await transport.balances(address, payout.token_contract)), minedCount: null };
  }

  private async waitOrFail(payout: PayoutRecord, reason: PendingReason): Promise<SendOutcome> {
    if (this.config.payouts.hotWalletShortfall === 'fail' && reason !== 'network_unavailable') {
      const failed = await this.outcomes.failPending(payout.id, failureMessage(reason));
      return failed ? 'failed' : 'skipped';
    }
    return this.postpone(payout, reason);
  }

  private async postpone(payout: PayoutRecord, reason: PendingReason): Promise<SendOutcome> {
    if (payout.pending_reason !== reason) {
      this.logger.warn({ payoutId: payout.id, reason }, 'Payout waits for the hot wallet');
    }
    await this.journal.postpone(payout.id, reason, this.retryDelayMs());
    return 'postponed';
  }

  private retryDelayMs(): number {
    return this.config.payouts.retryDelayMs;
  }
}

function failureMessage(reason: PendingReason): string {
  switch (reason) {
    case 'hot_wallet_insufficient_token':
      return 'The hot wallet does not hold enough tokens for this payout.';
    case 'hot_wallet_insufficient_gas':
      return 'The hot wallet cannot pay the network fee for this payout.';
    case 'hot_wallet_not_configured':
      return 'No hot wallet is configured for this network.';
    default:
      return `Payout could not be sent (${reason}).`;
  }
}
